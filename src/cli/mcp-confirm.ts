// The irreversible tools of grove mcp (issue 25, item 4): grove_merge,
// grove_publish, grove_cancel, grove_approve and grove_deny, offered only when
// the person turned mcp.irreversibleTools on. None of the first four acts by
// itself: each stores a confirmation (domain/confirmation.ts) that waits in
// the person's inbox, and this process performs the action only once it
// reads the person's 'confirmed', through the same calls as `grove merge`,
// `grove publish`, `grove cancel` and `grove approve`. grove_deny acts at
// once: denying an agent's request is what its timeout does anyway. The
// client is an agent: it can never confirm a request (no tool answers one).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod/mini';
import { decideApproval } from '../app/awaited-intents.js';
import { findApproval } from '../app/services/approvals.js';
import { remoteBranchRefusal } from '../domain/branch-name.js';
import { guardRefusal } from '../app/services/agent-guard.js';
import {
  askConfirmation,
  awaitDecision,
  findConfirmation,
  namesConfirmation,
} from '../app/services/confirmations.js';
import { approvalShortId, approvalWhat, type HeldApproval } from '../domain/approval.js';
import {
  CONFIRM_PREFIX,
  clientName,
  confirmWhat,
  confirmationWords,
  type ConfirmAction,
  type Confirmation,
} from '../domain/confirmation.js';
import type { Session } from '../domain/session.js';
import { cancelJson, landJson } from './command-json.js';
import { stopOtherProcesses, type HeadlessContext } from './headless.js';
import { landRefusal, landSession } from './land.js';
import { text, tool, type ToolResult } from './mcp-result.js';

/** How long a tool call waits for the person by default, in seconds (an MCP client's own request timeout is often 60 s). */
const DEFAULT_WAIT_S = 50;
/** The longest one call waits. */
const MAX_WAIT_S = 600;

/** The server's side of the requests it asked: each waits, then acts, in the background. */
export interface HeldActions {
  /** By `action:session:detail`: the request and what it comes to (the tool's answer). */
  readonly pending: Map<string, { request: Confirmation; result: Promise<ToolResult> }>;
}

export function heldActions(): HeldActions {
  return { pending: new Map() };
}

/** Refuses the requests still waiting (the server is closing) and waits for those being done. */
export async function closeHeldActions(ctx: HeadlessContext, held: HeldActions): Promise<void> {
  const { store, clock } = ctx.infra;
  for (const { request } of held.pending.values())
    await store.confirmations.decide(
      request.id,
      'refused',
      clock.now(),
      'the grove mcp that asked ended before you answered',
    );
  await Promise.allSettled([...held.pending.values()].map((p) => p.result));
}

type Ask = {
  readonly action: ConfirmAction;
  readonly session: Session;
  readonly detail: string | null;
  /** What the action does once confirmed: the tool's answer. */
  readonly perform: () => Promise<ToolResult>;
};

export function registerIrreversibleTools(
  server: McpServer,
  ctx: HeadlessContext,
  held: HeldActions,
  ofProject: (id: string) => Promise<Session>,
): void {
  const { infra, project } = ctx;
  const deps = { store: infra.store, runtime: infra.runtime };
  const client = (): string => server.server.getClientVersion()?.name ?? '';

  /** The request's words, as the inbox shows them. */
  const words = (ask: Pick<Ask, 'action' | 'session' | 'detail'>): string =>
    confirmWhat(ask, ask.session.title || ask.session.id.slice(0, 8), ask.session.baseBranch);

  /** Waits on the person, then acts, recording what came of it on the request. */
  async function settle(request: Confirmation, ask: Ask): Promise<ToolResult> {
    const status = await awaitDecision(
      deps,
      request.id,
      Math.max(0, request.expiresAt - infra.clock.now()) + 1000,
    );
    if (status !== 'confirmed') {
      const why =
        (await infra.store.confirmations.get(request.id))?.outcome ?? confirmationWords(status);
      return {
        ...text(`The person did not confirm it (${why}): nothing was done to ${words(ask)}.`),
        isError: true,
      };
    }
    const result = await ask.perform().catch((error: unknown) => ({
      ...text(error instanceof Error ? error.message : String(error)),
      isError: true,
    }));
    const said = result.content.map((c) => c.text).join('\n');
    await infra.store.confirmations.setOutcome(
      request.id,
      `${result.isError === true ? 'failed' : 'done'}: ${said.slice(0, 2000)}`,
    );
    return result;
  }

  /** Asks the person (or joins the same request still pending) and waits up to `waitSeconds`. */
  async function confirmThen(ask: Ask, waitSeconds: number | undefined): Promise<ToolResult> {
    const key = `${ask.action}:${ask.session.id}:${ask.detail ?? ''}`;
    let entry = held.pending.get(key);
    if (!entry) {
      const request = await askConfirmation(deps, ctx.app.state.settings, {
        sessionId: ask.session.id,
        action: ask.action,
        detail: ask.detail,
        client: client(),
      });
      const result = settle(request, ask).finally(() => held.pending.delete(key));
      entry = { request, result };
      held.pending.set(key, entry);
    }
    const limit = Math.min(Math.max(waitSeconds ?? DEFAULT_WAIT_S, 0), MAX_WAIT_S) * 1000;
    let timer: NodeJS.Timeout | undefined;
    const answer = await Promise.race([
      entry.result,
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), limit);
      }),
    ]);
    clearTimeout(timer);
    if (answer) return answer;
    const id = `${CONFIRM_PREFIX}${entry.request.id}`;
    return text({
      waiting: true,
      confirmation: id,
      text: `waiting for confirmation: ${id}. ${clientName(client())} asks to ${words(ask)}; the person confirms or refuses it in Grove's inbox. Nothing is done until then. Call this tool again with the same arguments to keep waiting; it is done by this server if confirmed while it runs.`,
    });
  }

  /** The session, refused when it cannot be landed this way now (nothing is asked then). */
  async function landable(id: string, kind: 'merge' | 'publish'): Promise<Session> {
    const session = await ofProject(id);
    // The agent guard is the person's to acknowledge, in Grove: never through a tool.
    const guard = guardRefusal(session, kind);
    if (guard) throw new Error(guard);
    const refusal = await landRefusal(ctx, session, kind);
    if (refusal) throw new Error(refusal);
    return session;
  }

  async function land(kind: 'merge' | 'publish', asked: Session, branch: string | null) {
    const session = await landable(asked.id, kind);
    const warnings: string[] = [];
    const outcome = await landSession(ctx, session, kind, branch, (l) => warnings.push(...l));
    switch (outcome.status) {
      case 'done':
        return text({ ...landJson(outcome.session, kind === 'merge'), warnings });
      case 'interrupted':
        throw new Error(`the ${kind} was stopped; the session is in ${outcome.session.status}`);
      case 'held':
        throw new Error(`${outcome.reason} The ${kind} was not started.`);
      case 'failed':
        throw new Error(outcome.error);
      default:
        return outcome satisfies never;
    }
  }

  const waitSchema = z.optional(z.number());
  const waitWords = `waitSeconds: how long this call waits for the person (default ${DEFAULT_WAIT_S}, at most ${MAX_WAIT_S}); then it returns "waiting for confirmation" and the request stays in the inbox until it expires (agents.approvalTimeout).`;

  server.registerTool(
    'grove_merge',
    {
      description: `Asks the person to merge a Grove session of ${project.displayName} into its base branch. It does not merge by itself: the request waits in the person's inbox, and the merge happens only if they confirm it; refused or expired, nothing is merged. ${waitWords}`,
      inputSchema: { id: z.string(), waitSeconds: waitSchema },
    },
    ({ id, waitSeconds }) =>
      tool(async () => {
        const session = await landable(id, 'merge');
        return confirmThen(
          { action: 'merge', session, detail: null, perform: () => land('merge', session, null) },
          waitSeconds,
        );
      }),
  );

  server.registerTool(
    'grove_publish',
    {
      description: `Asks the person to publish a Grove session as a GitHub pull request (pushing its branch, or the remote branch given). It does not publish by itself: only if the person confirms it in their inbox. ${waitWords}`,
      inputSchema: { id: z.string(), branch: z.optional(z.string()), waitSeconds: waitSchema },
    },
    ({ id, branch, waitSeconds }) =>
      tool(async () => {
        const session = await landable(id, 'publish');
        const detail = branch?.trim() || null;
        // A branch it could never publish to is refused now: nothing is asked.
        const refused =
          detail && !session.publishedBranch
            ? remoteBranchRefusal(detail, session.baseBranch)
            : null;
        if (refused) throw new Error(refused);
        return confirmThen(
          {
            action: 'publish',
            session,
            detail,
            perform: () => land('publish', session, detail),
          },
          waitSeconds,
        );
      }),
  );

  server.registerTool(
    'grove_cancel',
    {
      description: `Asks the person to cancel a Grove session (its agent stopped, its worktree removed, its work kept on a branch). It does not cancel by itself: only if the person confirms it in their inbox. ${waitWords}`,
      inputSchema: { id: z.string(), waitSeconds: waitSchema },
    },
    ({ id, waitSeconds }) =>
      tool(async () => {
        const session = await ofProject(id);
        const cannot = (s: Session): boolean =>
          ['Done', 'Canceled', 'Merged', 'Merging', 'Rebasing'].includes(s.status);
        if (cannot(session)) throw new Error(`a ${session.status} session cannot be canceled.`);
        const perform = async (): Promise<ToolResult> => {
          const fresh = await ofProject(session.id);
          if (cannot(fresh)) throw new Error(`a ${fresh.status} session cannot be canceled.`);
          await stopOtherProcesses(ctx, fresh.id);
          await ctx.intents.cancelSession(fresh.id);
          return text(cancelJson((await infra.store.sessions.get(fresh.id)) ?? fresh));
        };
        return confirmThen({ action: 'cancel', session, detail: null, perform }, waitSeconds);
      }),
  );

  /** The held agent request `item` names, of this project and still waiting; never a confirmation. */
  async function heldRequest(item: string): Promise<{ held: HeldApproval; session: Session }> {
    const refuse = (): never => {
      throw new Error(
        `${item} is a confirmation: only the person answers one, in Grove's inbox or with grove approve / grove deny; no MCP tool can.`,
      );
    };
    if (namesConfirmation(item)) refuse();
    const found = await findApproval(infra.store, item);
    if (!found.ok) {
      if ((await findConfirmation(infra.store, item)).ok) refuse();
      throw new Error(found.why);
    }
    const held = found.held;
    const session = await ofProject(held.sessionId);
    if (held.status !== 'waiting' || held.expiresAt <= infra.clock.now())
      throw new Error('that request is no longer waiting');
    return { held, session };
  }

  server.registerTool(
    'grove_approve',
    {
      description: `Asks the person to approve, once, a request an agent CLI holds in the inbox (an approval item: its approvalId). It does not approve by itself: the approval happens only if the person confirms it. It cannot answer a confirmation item. ${waitWords}`,
      inputSchema: { item: z.string(), waitSeconds: waitSchema },
    },
    ({ item, waitSeconds }) =>
      tool(async () => {
        const { held, session } = await heldRequest(item);
        const perform = async (): Promise<ToolResult> => {
          const outcome = await decideApproval(deps, held.id, 'once');
          if (!outcome.ok) throw new Error(outcome.why);
          return text(`approved once: ${held.agent} asked to ${approvalWhat(held)}`);
        };
        return confirmThen(
          {
            action: 'approve',
            session,
            detail: `${approvalShortId(held.id)} (${held.agent} asks to ${approvalWhat(held)})`,
            perform,
          },
          waitSeconds,
        );
      }),
  );

  server.registerTool(
    'grove_deny',
    {
      description:
        'Denies a request an agent CLI holds in the inbox (an approval item: its approvalId), at once: what its timeout would do. It cannot answer a confirmation item.',
      inputSchema: { item: z.string() },
    },
    ({ item }) =>
      tool(async () => {
        const { held } = await heldRequest(item);
        const outcome = await decideApproval(deps, held.id, 'denied');
        if (!outcome.ok) throw new Error(outcome.why);
        return text(`denied: ${held.agent} asked to ${approvalWhat(held)}`);
      }),
  );
}
