// The JSON objects that `--json` prints for the commands that act on a session,
// an approval or a host (documented in docs/usage/cli.md, "JSON output"):
// grove approve and deny (an approval, a confirmation or a budget hold), diff, merge, rebase, publish, cancel, gc, host add
// and host rm. The turn's object (run, reply, show) is in session-json.ts.
import type { HostCleanupOutcome } from '../app/services/host-cleanup.js';
import * as z from 'zod/mini';
import type { SharedUse } from '../domain/shared-folders.js';
import type { ApprovalChoice, HeldApproval } from '../domain/approval.js';
import type { BudgetStop } from '../domain/budget.js';
import type { Confirmation } from '../domain/confirmation.js';
import { snapshotRef } from '../domain/gc.js';
import type { Host } from '../domain/host.js';
import type { Session } from '../domain/session.js';
import type { GcItem, GcReport } from '../app/services/gc.js';

/** `grove approve|deny ITEM --json`: the request and the decision taken. */
export const ApprovalDecisionSchema = z.object({
  approvalId: z.string(),
  sessionId: z.string(),
  /** once, session, allowList or denied. */
  decision: z.string(),
  agent: z.string(),
  /** command, edit or network. */
  kind: z.string(),
  /** The command line, the files an edit writes, or a network request's host:port, as the agent asked. */
  subject: z.string(),
  cwd: z.nullable(z.string()),
});

export function approvalDecisionJson(
  held: HeldApproval,
  choice: ApprovalChoice,
): z.infer<typeof ApprovalDecisionSchema> {
  return {
    approvalId: held.id,
    sessionId: held.sessionId,
    decision: choice,
    agent: held.agent,
    kind: held.kind,
    subject: held.subject,
    cwd: held.cwd,
  };
}

/** `grove approve|deny ITEM --json` on an MCP client's confirmation: the request and the answer. */
export const ConfirmationDecisionSchema = z.object({
  confirmationId: z.string(),
  sessionId: z.string(),
  /** confirmed or refused. */
  decision: z.string(),
  /** merge, publish, cancel or approve. */
  action: z.string(),
  /** The action's argument as the client gave it (a remote branch, a held approval), or null. */
  detail: z.nullable(z.string()),
  /** The MCP client's name as it introduced itself. */
  client: z.string(),
});

export function confirmationDecisionJson(
  request: Confirmation,
): z.infer<typeof ConfirmationDecisionSchema> {
  return {
    confirmationId: request.id,
    sessionId: request.sessionId,
    decision: request.status,
    action: request.action,
    detail: request.detail,
    client: request.client,
  };
}

/** `grove deny usage:ID --json`: the prompt that waited for its agent's usage limit, dropped. */
export const UsageDecisionSchema = z.object({
  /** The inbox item: usage:<session id>. */
  item: z.string(),
  sessionId: z.string(),
  /** dropped (the prompt canceled, never sent). */
  decision: z.literal('dropped'),
  /** The agent whose usage limit it waited for. */
  agent: z.string(),
  /** When the limit was to lift (ISO 8601). */
  until: z.string(),
  /** The prompt as the person wrote it. */
  prompt: z.string(),
  /** The session's status once done. */
  status: z.string(),
});

export function usageDecisionJson(
  session: Session,
  agent: string,
  until: number,
  prompt: string,
): z.infer<typeof UsageDecisionSchema> {
  return {
    item: `usage:${session.id}`,
    sessionId: session.id,
    decision: 'dropped',
    agent,
    until: new Date(until).toISOString(),
    prompt,
    status: session.status,
  };
}

/** `grove approve|deny budget:ID --json`: the prompt a budget limit held, and what was done with it. */
export const BudgetDecisionSchema = z.object({
  /** The inbox item: budget:<session id>. */
  item: z.string(),
  sessionId: z.string(),
  /** raised (the limit raised and the prompt sent) or dropped (the prompt canceled, never sent). */
  decision: z.string(),
  /** session (the session's own limit) or project (the project's setting). */
  scope: z.string(),
  /** tokens or usd. */
  measure: z.string(),
  /** The limit that held the prompt. */
  heldAt: z.number(),
  /** The limit now: raised by another full budget on top of what was spent, or heldAt. */
  limit: z.number(),
  /** The held prompt as the person wrote it. */
  prompt: z.string(),
  /** The session's status once done (after the prompt's turn, when raised). */
  status: z.string(),
});

export function budgetDecisionJson(
  session: Session,
  decision: 'raised' | 'dropped',
  stop: BudgetStop,
  limit: number,
  prompt: string,
): z.infer<typeof BudgetDecisionSchema> {
  return {
    item: `budget:${session.id}`,
    sessionId: session.id,
    decision,
    scope: stop.scope,
    measure: stop.measure,
    heldAt: stop.limit,
    limit,
    prompt,
    status: session.status,
  };
}

/** `grove diff ID --json`. */
export const DiffJsonSchema = z.object({
  sessionId: z.string(),
  branch: z.string(),
  baseBranch: z.string(),
  files: z.array(z.object({ path: z.string(), added: z.number(), deleted: z.number() })),
  patch: z.string(),
});

export function diffJson(
  session: Session,
  diff: {
    readonly files: readonly { path: string; added: number; deleted: number }[];
    readonly patch: string;
  },
): z.infer<typeof DiffJsonSchema> {
  return {
    sessionId: session.id,
    branch: session.branch,
    baseBranch: session.baseBranch,
    files: diff.files.map((f) => ({ path: f.path, added: f.added, deleted: f.deleted })),
    patch: diff.patch,
  };
}

/** `grove merge|rebase|publish ID --json`: the session as the command left it. */
export const LandJsonSchema = z.object({
  sessionId: z.string(),
  status: z.string(),
  branch: z.string(),
  baseBranch: z.string(),
  /** The squash commit on the base branch (merge); null otherwise. */
  commit: z.nullable(z.string()),
  /** The remote branch the session is published on; null: never published. */
  remoteBranch: z.nullable(z.string()),
  pullRequest: z.nullable(z.object({ number: z.number(), url: z.string(), state: z.string() })),
});

export function landJson(session: Session, merged: boolean): z.infer<typeof LandJsonSchema> {
  return {
    sessionId: session.id,
    status: session.status,
    branch: session.branch,
    baseBranch: session.baseBranch,
    commit: merged ? session.mergedCommit : null,
    remoteBranch: session.publishedBranch,
    pullRequest: session.reviewRequest
      ? {
          number: session.reviewRequest.number,
          url: session.reviewRequest.url,
          state: session.reviewRequest.state,
        }
      : null,
  };
}

/** `grove cancel ID --json`. */
export const CancelJsonSchema = z.object({
  sessionId: z.string(),
  status: z.string(),
  /** The branch that keeps the session's work; null: there was none, the branch is deleted. */
  keptBranch: z.nullable(z.string()),
});

export function cancelJson(session: Session): z.infer<typeof CancelJsonSchema> {
  return { sessionId: session.id, status: session.status, keptBranch: session.keptBranch };
}

/** `grove gc --json`: each worktree removed, that would be (--dry-run), or kept, and the bytes. */
export const GcJsonSchema = z.object({
  dryRun: z.boolean(),
  days: z.number(),
  /** Bytes reclaimed (with --dry-run: that would be). */
  bytes: z.number(),
  items: z.array(
    z.object({
      sessionId: z.string(),
      status: z.string(),
      title: z.string(),
      worktree: z.string(),
      /** removed, wouldRemove or kept. */
      action: z.string(),
      bytes: z.number(),
      /** The ref keeping uncommitted work; commit and restore are null in a dry run. */
      snapshot: z.nullable(
        z.object({
          ref: z.string(),
          commit: z.nullable(z.string()),
          restore: z.nullable(z.string()),
        }),
      ),
      /** Why a worktree was kept; null otherwise. */
      reason: z.nullable(z.string()),
      /** Its shared folders (worktree.shared): `link` into the main checkout (0 bytes) or its own `folder`. */
      shared: z.array(z.object({ path: z.string(), kind: z.string(), bytes: z.number() })),
    }),
  ),
  /** What sessions of the project that ended left on their hosts: cleaned, kept or pending, in words. */
  hosts: z.array(
    z.object({ sessionId: z.string(), host: z.string(), action: z.string(), detail: z.string() }),
  ),
});

type GcItemJson = z.infer<typeof GcJsonSchema>['items'][number];

function gcItemJson(item: GcItem): GcItemJson {
  const s = item.session;
  const base = { sessionId: s.id, status: s.status, title: s.title, worktree: s.worktreePath };
  switch (item.kind) {
    case 'removed':
      return {
        ...base,
        action: 'removed',
        bytes: item.bytes,
        snapshot: item.snapshot,
        reason: null,
        shared: sharedJson(item.shared),
      };
    case 'wouldRemove':
      return {
        ...base,
        action: 'wouldRemove',
        bytes: item.bytes,
        snapshot: item.snapshot ? { ref: snapshotRef(s.id), commit: null, restore: null } : null,
        reason: null,
        shared: sharedJson(item.shared),
      };
    case 'skipped':
      return {
        ...base,
        action: 'kept',
        bytes: 0,
        snapshot: null,
        reason: item.reason,
        shared: [],
      };
  }
}

function sharedJson(shared: readonly SharedUse[]): GcItemJson['shared'] {
  return shared.map((u) => ({ path: u.path, kind: u.kind, bytes: u.allocated }));
}

export function gcJson(
  report: GcReport,
  days: number,
  dryRun: boolean,
  hosts: readonly HostCleanupOutcome[] = [],
): z.infer<typeof GcJsonSchema> {
  return {
    dryRun,
    days,
    bytes: report.bytes,
    items: report.items.map(gcItemJson),
    hosts: hosts.map((h) => ({
      sessionId: h.sessionId,
      host: h.host,
      action: h.kind,
      detail: h.text,
    })),
  };
}

/** `grove host add|rm NAME --json`: the host added (or changed) or removed. */
export const HostJsonSchema = z.object({
  name: z.string(),
  destination: z.string(),
  root: z.string(),
});

export function hostJson(host: Pick<Host, 'name' | 'destination' | 'root'>) {
  return { name: host.name, destination: host.destination, root: host.root };
}

/** Prints `value` as the command's JSON result, as `grove ls --json` does. */
export function printJson(io: { readonly stdout: NodeJS.WritableStream }, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
