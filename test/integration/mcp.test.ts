import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GROVE_BIN, makeRepo } from '../helpers/grove-env.js';
import { REAL_CLI_BIN } from '../helpers/real-clis.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';

// `grove mcp`: the built binary as an MCP server on stdio, driven by the MCP
// SDK's own client and by the real Claude Code (given `grove mcp` in its MCP
// config), with the real Claude Code as the session's agent and the fake
// model server behind both. The sessions are real: a worktree, a branch, a
// turn, the store.

let h: Harness;
let client: Client | null = null;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await client?.close();
  client = null;
  await h.close();
});

async function connect(repo = h.repo): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GROVE_BIN, 'mcp', '-C', repo],
    env: h.env,
    stderr: 'pipe',
  });
  client = new Client({ name: 'grove-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

type Result = Awaited<ReturnType<Client['callTool']>>;

function textOf(result: Result): string {
  const [first] = result.content as { type: string; text: string }[];
  return first?.text ?? '';
}

function jsonOf<T>(result: Result): T {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return JSON.parse(textOf(result)) as T;
}

describe('grove mcp with the MCP SDK client', () => {
  it('lists its tools, none of them irreversible', async () => {
    const c = await connect();
    const names = (await c.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual([
      'grove_list_sessions',
      'grove_read_diff',
      'grove_read_inbox',
      'grove_reply',
      'grove_show_session',
      'grove_start_session',
      'grove_wait_session',
    ]);
  });

  it('starts a session, waits for its turn, reads its diff, and replies to its question', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Greet the team',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      {
        when: 'Greet the team',
        text: reply('Wrote it.', {
          questions: [{ text: 'Which \u001b[31mlanguage\u001b[0m next?', options: ['fr', 'de'] }],
        }),
      },
    ]);
    const c = await connect();
    const started = jsonOf<{ sessionId: string; branch: string }>(
      await c.callTool({ name: 'grove_start_session', arguments: { prompt: 'Greet the team' } }),
    );
    expect(started.branch).toMatch(/^grove\//);

    const waited = jsonOf<{ over: boolean; status: string; answer: string; questions: unknown[] }>(
      await c.callTool({
        name: 'grove_wait_session',
        arguments: { id: started.sessionId.slice(0, 8), timeoutSeconds: 120 },
      }),
    );
    expect(waited).toMatchObject({ over: true, status: 'Question', answer: 'Wrote it.' });
    expect(JSON.stringify(waited.questions)).not.toContain('\\u001b');

    const diff = textOf(
      await c.callTool({ name: 'grove_read_diff', arguments: { id: started.sessionId } }),
    );
    expect(diff).toContain('+hello');

    const listed = jsonOf<{ sessionId: string; status: string }[]>(
      await c.callTool({ name: 'grove_list_sessions', arguments: {} }),
    );
    expect(listed.map((s) => [s.sessionId, s.status])).toEqual([[started.sessionId, 'Question']]);
    const inbox = jsonOf<{ kind: string; sessionId: string }[]>(
      await c.callTool({ name: 'grove_read_inbox', arguments: {} }),
    );
    expect(inbox.map((i) => [i.kind, i.sessionId])).toEqual([['question', started.sessionId]]);

    h.utilities('Greet the team');
    h.server.script('anthropic', [{ when: 'French please', text: reply('Bonjour.') }]);
    jsonOf(
      await c.callTool({
        name: 'grove_reply',
        arguments: { id: started.sessionId, prompt: 'French please' },
      }),
    );
    const after = jsonOf<{ status: string; answer: string }>(
      await c.callTool({ name: 'grove_wait_session', arguments: { id: started.sessionId } }),
    );
    expect(after).toMatchObject({ status: 'Review', answer: 'Bonjour.' });

    // The same session, as the headless CLI sees it in the store.
    const show = await h.grove(['show', started.sessionId, '--json']);
    expectExit(show, 0);
    expect(JSON.parse(show.stdout)).toMatchObject({ status: 'Review', answer: 'Bonjour.' });
  });

  it('refuses a session of another project and an empty prompt, as tool errors that change nothing', async () => {
    h.utilities();
    h.server.script('anthropic', [{ when: 'Elsewhere', text: reply('Done.') }]);
    const other = makeRepo(h.world, 'other');
    const run = await h.grove(['run', '-C', other, '--output', 'json', 'Elsewhere']);
    expectExit(run, 0);
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };

    const c = await connect();
    const shown = await c.callTool({ name: 'grove_show_session', arguments: { id: sessionId } });
    expect(shown.isError).toBe(true);
    expect(textOf(shown)).toContain('is not a session of project');
    const empty = await c.callTool({ name: 'grove_start_session', arguments: { prompt: '  ' } });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toBe('the prompt is empty');
    expect(
      jsonOf<unknown[]>(await c.callTool({ name: 'grove_list_sessions', arguments: {} })),
    ).toEqual([]);
  });
});

describe('grove mcp given to the real Claude Code', () => {
  it('lets the agent start a Grove session with a tool call and read it back', async () => {
    const config = join(h.world.dir, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          grove: { command: process.execPath, args: [GROVE_BIN, 'mcp', '-C', h.repo] },
        },
      }),
    );
    h.utilities();
    h.server.script('anthropic', [
      // The outer Claude Code, asked by the person.
      {
        when: 'Start a Grove session that greets',
        toolCall: {
          kind: 'tool',
          name: 'mcp__grove__grove_start_session',
          input: { prompt: 'Say hello from inside Grove' },
        },
      },
      {
        when: 'Start a Grove session that greets',
        toolCall: { kind: 'tool', name: 'mcp__grove__grove_wait_session', input: {} },
      },
      { when: 'Start a Grove session that greets', text: 'Started it.' },
      // The Grove session's own agent (the outer agent's requests, which quote its prompt, take the steps above first).
      { when: 'Say hello from inside Grove', text: reply('Hello from inside Grove.') },
    ]);
    const claude = join(REAL_CLI_BIN, 'claude');
    expect(existsSync(claude)).toBe(true);
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        const child = spawn(
          claude,
          [
            '-p',
            '--mcp-config',
            config,
            '--strict-mcp-config',
            '--allowedTools',
            'mcp__grove__grove_start_session,mcp__grove__grove_wait_session',
            '--output-format',
            'json',
            'Start a Grove session that greets',
          ],
          // MCP tools offered as they are, not behind Claude Code's tool search.
          {
            cwd: h.world.dir,
            env: { ...h.env, ENABLE_TOOL_SEARCH: 'false' },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      },
    );
    expect(out.code, out.stderr + out.stdout).toBe(0);
    expect(out.stdout, out.stdout).toContain('Started it.');

    // The session the agent started is in Grove's store, on its own branch.
    const ls = await h.grove(['ls', '--json']);
    expectExit(ls, 0);
    const sessions = JSON.parse(ls.stdout) as { sessionId: string; branch: string }[];
    expect(sessions).toHaveLength(1);
    // The outer agent waited for its turn and read it back through the second tool call.
    const readBack = h.server.requests.find(
      (r) =>
        JSON.stringify(r.body).includes('tool_result') &&
        JSON.stringify(r.body).includes('Hello from inside Grove.'),
    );
    expect(readBack).toBeDefined();
    // Its turn ended, in the server Claude Code started, with the agent's answer.
    const shown = await h.grove(['show', sessions[0]?.sessionId ?? '-', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      status: 'Review',
      answer: 'Hello from inside Grove.',
    });
  });
});
