import { existsSync } from 'node:fs';
import * as z from 'zod/mini';
import { diskUsage } from '../infra/disk-usage.js';
import { checksSummary, type PullRequestChecks } from '../domain/checks.js';
import type { Session } from '../domain/session.js';
import { activeWorkSeconds } from '../domain/session.js';
import { permissionModeFlag } from '../domain/permission-mode.js';
import { usageSplit, type RoleUsage } from '../domain/usage-roles.js';
import type { ResourceSample, TreeResources } from '../domain/resources.js';
import { sampleOnce } from '../app/services/resources.js';
import { recordedAgents } from '../infra/agent/confine/leftovers.js';
import { readProcessTable } from '../infra/proc.js';

const IssueJson = z.object({ number: z.number(), title: z.string(), url: z.string() });

const issueJson = (session: Session): z.infer<typeof IssueJson> | null =>
  session.issue
    ? { number: session.issue.number, title: session.issue.title, url: session.issue.url }
    : null;

/** The JSON shape of `grove run --output json` and `grove show --json` (documented in docs/usage/cli.md). */
export const SessionResultSchema = z.object({
  sessionId: z.string(),
  title: z.string(),
  branch: z.string(),
  baseBranch: z.string(),
  worktree: z.string(),
  /** The host the session runs on (grove host add); null: this machine. */
  host: z.nullable(z.string()),
  status: z.string(),
  agent: z.string(),
  model: z.string(),
  /** auto-edit, read-only or plan (the `--mode` spelling). */
  permissionMode: z.string(),
  answer: z.string(),
  summary: z.nullable(z.object({ turn: z.string(), session: z.string() })),
  questions: z.array(z.object({ text: z.string(), options: z.array(z.string()) })),
  files: z.array(z.object({ path: z.string(), added: z.number(), deleted: z.number() })),
  usage: z.object({
    /** Every model request Grove made for the session: the agent's turns and Grove's own calls. */
    inputTokens: z.number(),
    outputTokens: z.number(),
    totalTokens: z.number(),
    /** The part of totalTokens Grove's own calls took (title, commit, review, rebase, judge, repair). */
    groveTokens: z.number(),
    byRole: z.array(
      z.object({
        role: z.string(),
        model: z.string(),
        inputTokens: z.number(),
        outputTokens: z.number(),
        requests: z.number(),
      }),
    ),
  }),
  durationMs: z.number(),
  pullRequest: z.nullable(z.object({ number: z.number(), url: z.string(), state: z.string() })),
  /** The GitHub issue the session works on (grove run --issue, grove link); null: none. */
  issue: z.nullable(IssueJson),
});

export type SessionResult = z.infer<typeof SessionResultSchema>;

export function sessionResult(
  session: Session,
  answer: string,
  files: readonly { path: string; added: number; deleted: number }[],
  durationMs: number,
  usage: readonly RoleUsage[],
): SessionResult {
  return {
    sessionId: session.id,
    title: session.title,
    branch: session.branch,
    baseBranch: session.baseBranch,
    worktree: session.worktreePath,
    host: session.host ?? null,
    status: session.status,
    agent: session.agent,
    model: session.model,
    permissionMode: permissionModeFlag(session.permissionMode),
    answer,
    summary: session.summary
      ? { turn: session.summary.turn, session: session.summary.session }
      : null,
    questions: session.questions.map((q) => ({ text: q.text, options: [...q.options] })),
    files: files.map((f) => ({ path: f.path, added: f.added, deleted: f.deleted })),
    usage: usageJson(usage),
    durationMs,
    pullRequest: session.reviewRequest
      ? {
          number: session.reviewRequest.number,
          url: session.reviewRequest.url,
          state: session.reviewRequest.state,
        }
      : null,
    issue: issueJson(session),
  };
}

/**
 * What the session's agent process tree uses (issue 27), read once when the
 * command runs; null when no agent runs for it. CPU is the average since its
 * processes started (one reading has nothing to compare with).
 */
export const ResourcesSchema = z.nullable(
  z.object({
    cpuPercent: z.number(),
    rssBytes: z.number(),
    processes: z.number(),
    sampledAt: z.string(),
  }),
);

export function resourcesJson(figures: TreeResources | undefined): z.infer<typeof ResourcesSchema> {
  return figures
    ? {
        cpuPercent: figures.cpuPercent,
        rssBytes: figures.rssBytes,
        processes: figures.processes,
        sampledAt: new Date(figures.sampledAt).toISOString(),
      }
    : null;
}

/**
 * One reading of what every session's agent uses, from the agents every
 * Grove process recorded (GROVE_HOME/run): null when none runs.
 */
export function sampleAgents(runDir: string): Promise<ResourceSample | null> {
  return sampleOnce(recordedAgents(runDir), () => readProcessTable(), process.pid);
}

export const SessionListItemSchema = z.object({
  sessionId: z.string(),
  title: z.string(),
  status: z.string(),
  size: z.string(),
  added: z.number(),
  deleted: z.number(),
  agent: z.string(),
  model: z.string(),
  branch: z.string(),
  /** The host the session runs on; null: this machine. */
  host: z.nullable(z.string()),
  activeSeconds: z.number(),
  updatedAt: z.string(),
  resources: ResourcesSchema,
  /** The worktree's size on disk in bytes, as `du -s` counts it; null: no worktree on this machine. */
  diskBytes: z.nullable(z.number()),
  issue: z.nullable(IssueJson),
});

export function listItem(
  session: Session,
  now: number,
  sample: ResourceSample | null = null,
  diskBytes: number | null = null,
): z.infer<typeof SessionListItemSchema> {
  return {
    sessionId: session.id,
    title: session.title,
    status: session.status,
    size: session.size,
    added: session.addedLines,
    deleted: session.deletedLines,
    agent: session.agent,
    model: session.model,
    branch: session.branch,
    host: session.host ?? null,
    activeSeconds: activeWorkSeconds(session, now),
    updatedAt: new Date(session.updatedAt).toISOString(),
    resources: resourcesJson(sample?.sessions[session.id]),
    diskBytes,
    issue: issueJson(session),
  };
}

/**
 * The session's worktree size in bytes (`du -s`), walked now; null when
 * the worktree is not on this machine (a host's session, or removed).
 */
export async function worktreeBytes(session: Session): Promise<number | null> {
  if (session.host || !existsSync(session.worktreePath)) return null;
  return diskUsage(session.worktreePath);
}

/**
 * The head commit's checks of the session's pull request, as the poller last
 * stored them (`grove show --json`); null before any was read.
 */
export function checksJson(checks: PullRequestChecks | undefined) {
  if (!checks) return null;
  return {
    headSha: checks.headSha,
    state: checks.state,
    error: checks.error,
    fetchedAt: new Date(checks.fetchedAt).toISOString(),
    items: checks.checks.map((c) => ({
      kind: c.kind,
      name: c.name,
      state: c.state,
      conclusion: c.conclusion,
      url: c.url,
      logTail: c.logTail,
      logError: c.logError,
    })),
  };
}

/** `grove show`'s checks lines: the badge and counts, then each failing check with its log tail. */
export function checksLines(checks: PullRequestChecks | undefined): string[] {
  if (!checks) return [];
  const lines = [
    `checks ${checks.state ?? 'none'} at ${checks.headSha.slice(0, 7)}${checks.checks.length > 0 ? ` (${checksSummary(checks.checks)})` : ''}`,
  ];
  if (checks.error) lines.push(`  ${checks.error}`);
  for (const check of checks.checks.filter((c) => c.state === 'failing')) {
    lines.push(`  failing: ${check.name}${check.conclusion ? ` (${check.conclusion})` : ''}`);
    if (check.logError) lines.push(`    ${check.logError}`);
    for (const line of check.logTail?.split('\n') ?? []) lines.push(`    | ${line}`);
  }
  return lines;
}

/** The session's usage, split by role and model, with its totals. */
export function usageJson(rows: readonly RoleUsage[]): SessionResult['usage'] {
  const split = usageSplit(rows);
  return {
    inputTokens: rows.reduce((sum, r) => sum + r.inputTokens, 0),
    outputTokens: rows.reduce((sum, r) => sum + r.outputTokens, 0),
    totalTokens: split.tokens,
    groveTokens: split.groveTokens,
    byRole: rows.map((r) => ({
      role: r.role,
      model: r.model,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      requests: r.requests,
    })),
  };
}

/** `grove show`'s usage lines: the total with Grove's part, then one line per role and model. */
export function usageLines(rows: readonly RoleUsage[]): string[] {
  const usage = usageJson(rows);
  const lines = [
    `usage ${usage.totalTokens} tokens (${usage.inputTokens} in / ${usage.outputTokens} out), ${usage.groveTokens} by Grove`,
  ];
  for (const row of usage.byRole)
    lines.push(
      `  ${row.role.padEnd(7)} ${row.model}  ${row.inputTokens} in / ${row.outputTokens} out  (${row.requests} request${row.requests === 1 ? '' : 's'})`,
    );
  return lines;
}
