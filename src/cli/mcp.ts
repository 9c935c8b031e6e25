// grove mcp: Grove's headless actions as the tools of an MCP server on
// standard input and output, for an agent (Claude Code, Codex, Gemini CLI)
// to start, follow and answer Grove sessions of one project: the one of its
// working directory (or -C DIR). Nothing irreversible is a tool (merge,
// publish, cancel, approve, deny stay with the person) unless the person
// turned mcp.irreversibleTools on, and even then such a tool only asks: the
// person confirms it in the inbox (src/cli/mcp-confirm.ts). Turns the server
// starts run in its own process; it ends when its client closes the stream,
// once those turns are over.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod/mini';
import { VERSION, type Infra } from '../compose.js';
import { readInbox } from '../app/queries.js';
import { PERMISSION_MODES, type PermissionMode } from '../domain/permission-mode.js';
import { groupOf, orderedSessions } from '../domain/session-order.js';
import type { Session } from '../domain/session.js';
import { INSTALLED_AGENTS_KEY } from '../domain/settings.js';
import { acpAgentValues } from './acp-agent-choice.js';
import {
  CommandError,
  EXIT,
  choiceFor,
  findSession,
  headlessContext,
  submitTurn,
  type HeadlessContext,
  type HeadlessIo,
} from './headless.js';
import { inboxJson } from './inbox.js';
import { sessionDiff } from './session-diff.js';
import { listItem, worktreeBytes } from './session-json.js';
import { hostRoomNote, sessionHost } from './session-host.js';
import { showJson, waitingOf } from './show.js';
import { showGroupJson } from './best-of.js';
import type { HeadlessCommand } from './args.js';
import { text, tool } from './mcp-result.js';
import {
  closeHeldActions,
  heldActions,
  registerIrreversibleTools,
  type HeldActions,
} from './mcp-confirm.js';
import { MCP_IRREVERSIBLE_KEY } from '../domain/confirmation.js';

/** The longest grove_wait_session waits in one call. */
const MAX_WAIT_S = 600;

function modeOf(value: string | undefined): PermissionMode {
  if (value === undefined) return 'auto_edit';
  const mode = PERMISSION_MODES.find((m) => m === value.replaceAll('-', '_'));
  if (!mode) throw new Error(`mode must be auto-edit, read-only or plan, not '${value}'`);
  return mode;
}

/** The tools: each works on the server's project only. */
export async function groveTools(
  ctx: HeadlessContext,
  started: Set<string>,
  held: HeldActions = heldActions(),
): Promise<McpServer> {
  const { infra, project } = ctx;
  // The MCP library loads only here (in the bundle: dist/vendor/mcp-sdk.cjs).
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const server = new McpServer({ name: 'grove', version: VERSION });

  async function ofProject(id: string): Promise<Session> {
    const session = await findSession(infra, id);
    if (session.projectId !== project.id)
      throw new Error(`session ${id} is not a session of ${project.displayName}`);
    return session;
  }

  async function shown(session: Session): Promise<Record<string, unknown>> {
    const fresh = (await infra.store.sessions.get(session.id)) ?? session;
    return showJson(
      infra,
      fresh,
      await infra.store.transcript.list(fresh.id),
      await showGroupJson(infra, fresh.id),
      await waitingOf(infra, fresh.id),
    );
  }

  server.registerTool(
    'grove_list_sessions',
    {
      description: `Lists the Grove sessions of ${project.displayName}, newest first: id, title, status, size, lines added and deleted, agent, model, branch. The archive (merged, done, canceled) too with all.`,
      inputSchema: { all: z.optional(z.boolean()) },
    },
    ({ all }) =>
      tool(async () => {
        const sessions = orderedSessions(
          await infra.store.sessions.listByProject(project.id),
          await infra.store.groups.listByProject(project.id),
        ).filter((s) => all === true || groupOf(s.status) !== 'archive');
        const now = infra.clock.now();
        const items = [];
        for (const s of sessions) items.push(listItem(s, now, null, await worktreeBytes(s)));
        return text(items);
      }),
  );

  server.registerTool(
    'grove_show_session',
    {
      description:
        'Shows a Grove session as `grove show --json` does: status, branch, worktree, the last answer, open questions, changed files, usage and the transcript. id: the session id or its first 8 characters.',
      inputSchema: { id: z.string() },
    },
    ({ id }) => tool(async () => text(await shown(await ofProject(id)))),
  );

  server.registerTool(
    'grove_read_diff',
    {
      description:
        "Reads a Grove session's diff against its base branch (uncommitted work included), as `grove diff` prints it.",
      inputSchema: { id: z.string() },
    },
    ({ id }) =>
      tool(async () => text((await sessionDiff(infra, ctx.io, await ofProject(id))).patch)),
  );

  server.registerTool(
    'grove_read_inbox',
    {
      description: `Lists what waits on the person in ${project.displayName}, oldest first: agent questions, approvals, budget holds, usage-limit waits, conflicts, failed turns and git steps, review threads.`,
      inputSchema: {},
    },
    () =>
      tool(async () => {
        const items = await readInbox({ store: infra.store, runtime: infra.runtime });
        return text(items.filter((i) => i.projectId === project.id).map(inboxJson));
      }),
  );

  server.registerTool(
    'grove_start_session',
    {
      description:
        "Starts a Grove session: a new branch and worktree, and a first turn of the agent with prompt. Returns at once with the session id; follow it with grove_wait_session or grove_show_session. agent and model as in `grove run` (default: the project settings); mode: auto-edit (default), read-only or plan; host as `grove run --host`: a host's name (grove host ls), local (this machine) or auto (this machine or a host with room, chosen when the turn starts); default: the project's default host. The result's host says where it runs (null: this machine, or not chosen yet with auto); waiting says at once that a host named with its own maximum has no room now (the turn waits for a slot there); the transcript says so too ([Admission]), and where an auto one went ([Placement]).",
      inputSchema: {
        prompt: z.string(),
        agent: z.optional(z.string()),
        model: z.optional(z.string()),
        mode: z.optional(z.string()),
        host: z.optional(z.string()),
      },
    },
    ({ prompt, agent, model, mode, host }) =>
      tool(async () => {
        if (prompt.trim() === '') throw new Error('the prompt is empty');
        const choice = choiceFor(
          {
            ...ctx.app.state.settings,
            [INSTALLED_AGENTS_KEY]: infra.agents.installed().join(','),
            ...acpAgentValues(infra.agents.acpAgents(), agent ?? null),
          },
          agent ?? null,
          model ?? null,
          null,
        );
        if (!infra.agents.installed().includes(choice.agent))
          throw new Error(`${choice.agent} is not installed (not found on PATH)`);
        const permissionMode = modeOf(mode);
        // Where grove run would put it (a host named, auto, the project's default host), checked before anything is made.
        const place = await sessionHost(infra, host ?? null, ctx.app.state.settings, [
          choice.agent,
        ]);
        const full = await hostRoomNote(infra, place, 1);
        const session = await ctx.intents.createSession(
          project.id,
          choice,
          ctx.app.state.settings,
          permissionMode,
          place,
        );
        await ctx.queries.whenReady(session.id);
        started.add(session.id);
        await submitTurn(ctx, session.id, prompt);
        return text({
          sessionId: session.id,
          branch: session.branch,
          status: 'InProgress',
          host: session.host ?? null,
          ...(full === null ? {} : { waiting: full }),
        });
      }),
  );

  server.registerTool(
    'grove_reply',
    {
      description:
        "Sends a follow-up prompt to a Grove session, or the answers to its open questions, and starts the agent's next turn. Returns at once; follow it with grove_wait_session.",
      inputSchema: { id: z.string(), prompt: z.string() },
    },
    ({ id, prompt }) =>
      tool(async () => {
        if (prompt.trim() === '') throw new Error('the prompt is empty');
        const session = await ofProject(id);
        started.add(session.id);
        await submitTurn(ctx, session.id, prompt);
        return text({ sessionId: session.id, queued: true });
      }),
  );

  server.registerTool(
    'grove_wait_session',
    {
      description: `Waits until the turn a Grove session runs here is over (at most timeoutSeconds, default and limit ${MAX_WAIT_S}), then shows the session as grove_show_session does. id may be left out when this server started or replied to one session only.`,
      inputSchema: { id: z.optional(z.string()), timeoutSeconds: z.optional(z.number()) },
    },
    ({ id, timeoutSeconds }) =>
      tool(async () => {
        const only = started.size === 1 ? [...started][0] : undefined;
        const named = id ?? only;
        if (named === undefined)
          throw new Error(
            'name the session (id): this server started or replied to none or several',
          );
        const session = await ofProject(named);
        const limit = Math.min(Math.max(timeoutSeconds ?? MAX_WAIT_S, 0), MAX_WAIT_S) * 1000;
        let timer: NodeJS.Timeout | undefined;
        const over = await Promise.race([
          ctx.queries.turnsOver(session.id).then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), limit);
          }),
        ]);
        clearTimeout(timer);
        return text({ over, ...(await shown(session)) });
      }),
  );

  // The irreversible tools exist only when the person turned them on (a global setting:
  // never the project's, which a repository's owner could have set).
  if ((await infra.store.settings.getGlobal(MCP_IRREVERSIBLE_KEY)) === 'on')
    registerIrreversibleTools(server, ctx, held, ofProject);

  return server;
}

export async function mcpCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'mcp' }>,
): Promise<number> {
  // Standard output is the protocol's: progress is never printed.
  const ctx = await headlessContext(infra, io, command.dir, false);
  const started = new Set<string>();
  const held = heldActions();
  const server = await groveTools(ctx, started, held);
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  const transport = new StdioServerTransport();
  process.stdin.once('end', () => void transport.close());
  // An agent CLI ends its MCP servers with SIGTERM when it exits: the turns
  // this server started still end here first (a second signal stops them, as
  // Ctrl+C does a grove run: what they wrote is kept).
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1 || ![...started].some((id) => ctx.queries.running(id) !== null))
      process.exit(signal === 'SIGINT' ? EXIT.interrupted : EXIT.ok);
    void transport.close();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  await server.connect(transport).catch((error: unknown) => {
    throw new CommandError(
      `could not start the MCP server: ${error instanceof Error ? error.message : String(error)}`,
      EXIT.failed,
    );
  });
  await closed;
  // Requests still waiting for the person are refused (nobody would do them), those confirmed end here.
  await closeHeldActions(ctx, held);
  // The client is gone: the turns it started still end here, as `grove run`'s would.
  await Promise.all([...started].map((id) => ctx.queries.turnsOver(id)));
  return EXIT.ok;
}
