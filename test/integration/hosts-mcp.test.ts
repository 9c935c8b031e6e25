import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { DEFAULT_HOST_KEY } from '../../src/domain/host.js';
import { installAcpAgent } from '../helpers/acp-agent.js';
import { startClaudeHost, type ClaudeHost } from '../helpers/claude-host.js';
import { GROVE_BIN, git } from '../helpers/grove-env.js';
import { withStore } from '../helpers/seed.js';
import { sshdIt, sshdProblem } from '../helpers/sshd.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ListSchema, ShowSchema } from './headless-schema.js';

// `grove mcp`'s grove_start_session places a session as `grove run` does
// (issue 24): a host named (`host`), `auto`, or the project's default host,
// with the built binary as the MCP server, the test sshd of
// test/helpers/sshd.ts (a second unix user) and the real Claude Code there.
// A host that is not one, or an agent that cannot run there, is the tool's
// error and makes nothing.

const it = sshdIt();
const ROOT = `.grove-test-mcp-${process.pid}`;
let h: Harness;
let host: ClaudeHost | undefined;
let env: Record<string, string>;
let client: Client | null = null;

type Result = Awaited<ReturnType<Client['callTool']>>;

function textOf(result: Result): string {
  const [first] = result.content as { type: string; text: string }[];
  return first?.text ?? '';
}

async function connect(): Promise<Client> {
  client = new Client({ name: 'grove-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [GROVE_BIN, 'mcp', '-C', h.repo],
      env: { ...h.env, ...env },
      stderr: 'pipe',
    }),
  );
  return client;
}

async function sessionIds(): Promise<string[]> {
  const ls = await h.grove(['ls', '--json', '--all'], { env });
  expectExit(ls, 0);
  return ListSchema.parse(JSON.parse(ls.stdout)).map((s) => s.sessionId);
}

async function setDefaultHost(value: string): Promise<void> {
  await withStore(h.world.groveHome, async (store) => {
    const [project] = await store.projects.list();
    if (project) await store.settings.setProject(project.id, DEFAULT_HOST_KEY, value);
  });
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  host = await startClaudeHost(h.server.url);
  env = { GROVE_SSH_CONFIG: host.sshd.config };
  expectExit(await h.grove(['host', 'add', 'build', host.sshd.alias, '--root', ROOT], { env }), 0);
  expectExit(await h.grove(['ls', '--json'], { env }), 0);
}, 60_000);

afterAll(async () => {
  await client?.close();
  if (!host) return;
  await host.close(ROOT);
  await h.close();
});

describe('grove mcp on a host', () => {
  it('starts a session on the host it is given, which works there and comes back here', async () => {
    const prompt = 'Work on build through MCP';
    h.server.script('anthropic', [
      { when: prompt, toolCall: { kind: 'shell', command: 'pwd > where.txt' } },
      { when: prompt, text: reply('Wrote where.txt.') },
    ]);
    // build takes no turn until its maximum is raised: the tool says so at once.
    expectExit(await h.grove(['host', 'set', 'build', 'max', '0'], { env }), 0);
    const c = await connect();
    const started = await c.callTool({
      name: 'grove_start_session',
      arguments: { prompt, host: 'build' },
    });
    expect(started.isError ?? false, textOf(started)).toBe(false);
    const {
      sessionId,
      host: placed,
      waiting,
    } = JSON.parse(textOf(started)) as { sessionId: string; host: string | null; waiting?: string };
    expect(placed).toBe('build');
    expect(waiting).toBe(
      'build runs at most 0 turns at once and 0 run there now: the turn waits in the queue for a slot there (grove host set build max N gives it more).',
    );
    expectExit(await h.grove(['host', 'set', 'build', 'max', 'auto'], { env }), 0);
    const waited = await c.callTool({
      name: 'grove_wait_session',
      arguments: { id: sessionId, timeoutSeconds: 240 },
    });
    expect(JSON.parse(textOf(waited))).toMatchObject({ over: true, status: 'Review' });
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', sessionId, '--json'], { env })).stdout),
    );
    expect(shown.host).toBe('build');
    expect(git(h.repo, 'show', `${shown.branch}:where.txt`)).toMatch(
      new RegExp(`/${ROOT}/worktrees/[^/]+/${sessionId}$`),
    );
  }, 300_000);

  it('refuses a host that is not one, and an agent that cannot run on the host (named or the default), making nothing', async () => {
    installAcpAgent(h.world);
    const c = await connect();
    const before = await sessionIds();
    const call = (args: Record<string, string>): Promise<Result> =>
      c.callTool({ name: 'grove_start_session', arguments: { prompt: 'Refused task', ...args } });

    const unknown = await call({ host: 'nope' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe("no host is named 'nope' (hosts: build)");

    const acp = await call({ host: 'build', agent: 'tiny' });
    expect(acp.isError).toBe(true);
    expect(textOf(acp)).toContain(
      'only Claude Code, Codex and Gemini CLI run on hosts yet, not acp:tiny (Grove starts the agents of agents.json on this machine only',
    );
    expect(textOf(acp)).toContain('use --agent claude with --host build');

    // No host given: the project's default host holds (read when the server starts).
    await setDefaultHost('build');
    try {
      await client?.close();
      const d = await connect();
      const byDefault = await d.callTool({
        name: 'grove_start_session',
        arguments: { prompt: 'Refused task', agent: 'tiny' },
      });
      expect(byDefault.isError).toBe(true);
      expect(textOf(byDefault)).toContain("this project's default host is build");
    } finally {
      await setDefaultHost('');
    }
    expect(await sessionIds()).toEqual(before);
    expect(h.server.requests.some((r) => JSON.stringify(r.body).includes('Refused task'))).toBe(
      false,
    );
  }, 120_000);
});
