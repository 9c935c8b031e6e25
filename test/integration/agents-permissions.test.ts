import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../src/domain/permission-mode.js';
import { agentResponseJsonSchema } from '../../src/domain/protocol.js';
import type { AgentChannel, TurnEvent, TurnRequest } from '../../src/infra/agent/channel.js';
import { createClaudeChannel } from '../../src/infra/agent/claude/claude.js';
import { createCodexChannel } from '../../src/infra/agent/codex/codex.js';
import { createGeminiChannel } from '../../src/infra/agent/gemini/gemini.js';
import { runProtocolTurn } from '../../src/infra/agent/protocol-turn.js';
import { agentEnv } from '../helpers/agent-env.js';
import {
  startFakeModelServer,
  type ApiName,
  type FakeModelServer,
  type Scripted,
} from '../helpers/fake-model/server.js';
import { realCliPath } from '../helpers/real-clis.js';

// Fail-closed approvals with the real, pinned CLIs: the scripted model asks
// for what the session's permission mode does not allow; the request is
// denied, nothing is written, and the turn carries a [Denied] line.

const REPLY = JSON.stringify({ answer: 'done', questions: [], summary: null });

let server: FakeModelServer;
let dir: string;
let repo: string;
let channel: AgentChannel | null = null;

beforeEach(async () => {
  server = await startFakeModelServer();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-perm-')));
  repo = join(dir, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  server.setWorkdir(repo);
});

afterEach(async () => {
  await channel?.shutdown();
  channel = null;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

type Provider = 'claude' | 'codex' | 'gemini';
const API: Record<Provider, ApiName> = { claude: 'anthropic', codex: 'openai', gemini: 'gemini' };

function make(provider: Provider): AgentChannel {
  const env = agentEnv(server, join(dir, 'home'));
  const options = { env, turnTimeoutMs: 90_000 };
  const binary = realCliPath(provider);
  return provider === 'claude'
    ? createClaudeChannel(options, binary)
    : provider === 'codex'
      ? createCodexChannel(options, binary)
      : createGeminiChannel(options, binary);
}

function request(provider: Provider, permissionMode: PermissionMode): TurnRequest {
  return {
    sessionId: 'session-1',
    cwd: repo,
    mainCheckout: join(dir, 'main-checkout'),
    prompt: 'Do the task',
    kind: 'session_start',
    model: provider === 'claude' ? 'sonnet' : provider === 'codex' ? 'gpt-5.5' : 'gemini-test',
    reasoning: provider === 'gemini' ? 'default' : 'high',
    permissionMode,
    providerConversationId: null,
    outputSchema: provider === 'gemini' ? null : agentResponseJsonSchema(provider === 'codex'),
  };
}

/** The tool lines of the last turn() (a denied call must not also show as one). */
let tools: string[] = [];

/** Runs one turn with a scripted first step, then a protocol reply; returns the denial lines. */
async function turn(provider: Provider, mode: PermissionMode, step: Scripted): Promise<string[]> {
  server.script(API[provider], [step, { text: REPLY }]);
  channel = make(provider);
  const events: TurnEvent[] = [];
  const result = await runProtocolTurn(
    channel,
    request(provider, mode),
    (e) => events.push(e),
    new AbortController().signal,
  );
  expect(result.response.answer).toBe('done');
  tools = events.flatMap((e) => (e.type === 'tool' ? [e.text] : []));
  return events.flatMap((e) => (e.type === 'denied' ? [e.text] : []));
}

describe('Codex', () => {
  it('an escalated command (to run outside the sandbox) is denied in Auto Edit, and nothing is written', async () => {
    const denied = await turn('codex', 'auto_edit', {
      toolCall: { kind: 'shell', command: 'printf x > ../outside.txt', escalate: true },
    });

    expect(existsSync(join(dir, 'outside.txt'))).toBe(false);
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatch(
      /^\[Denied\] Codex asked to run `.*printf x > \.\.\/outside\.txt.*`.*; Grove denied it: it asked to run outside the sandbox/,
    );
  });

  it.each(['read_only', 'plan'] as const)(
    'an edit in %s mode is denied, and the file is not written',
    async (mode) => {
      const denied = await turn('codex', mode, {
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hi\n' },
      });

      expect(existsSync(join(repo, 'hello.txt'))).toBe(false);
      expect(denied).toEqual([
        expect.stringMatching(
          new RegExp(
            `^\\[Denied\\] Codex asked to edit .*hello\\.txt; Grove denied it: the session is in ${mode === 'plan' ? 'Plan' : 'Read Only'} mode\\.$`,
          ),
        ),
      ]);
      expect(tools.filter((line) => line.includes('hello.txt'))).toEqual([]);
    },
  );

  it('an edit inside the worktree still works in Auto Edit', async () => {
    const denied = await turn('codex', 'auto_edit', {
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hi\n' },
    });

    expect(existsSync(join(repo, 'hello.txt'))).toBe(true);
    expect(denied).toEqual([]);
  });
});

describe('Gemini CLI', () => {
  it('a shell command that writes outside the worktree is denied in Auto Edit', async () => {
    const denied = await turn('gemini', 'auto_edit', {
      toolCall: { kind: 'shell', command: 'printf x > ../outside.txt' },
    });

    expect(existsSync(join(dir, 'outside.txt'))).toBe(false);
    expect(denied).toEqual([
      '[Denied] Gemini CLI asked to run `printf x > ../outside.txt`; Grove denied it: it names ../outside.txt, outside the worktree.',
    ]);
  });

  it.each([
    [
      'an edit',
      { toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hi\n' } },
      /^\[Denied\] Gemini CLI asked to edit .*hello\.txt; Grove denied it: the session is in Read Only mode\.$/,
    ],
    [
      'a shell command',
      { toolCall: { kind: 'shell', command: 'printf x > hello.txt' } },
      /^\[Denied\] Gemini CLI asked to run `printf x > hello\.txt`; Grove denied it: the session is in Read Only mode\.$/,
    ],
  ] as const)(
    '%s in Read Only mode is denied, and the file is not written',
    async (_what, step, line) => {
      const denied = await turn('gemini', 'read_only', step);

      expect(existsSync(join(repo, 'hello.txt'))).toBe(false);
      expect(denied).toEqual([expect.stringMatching(line)]);
      expect(tools.filter((t) => t.includes('(failed)'))).toEqual([]);
    },
  );

  it('a write outside its workspace, refused by Gemini CLI itself, is a [Denied] line', async () => {
    const denied = await turn('gemini', 'auto_edit', {
      toolCall: { kind: 'write_file', path: '../outside.txt', content: 'x' },
    });

    expect(existsSync(join(dir, 'outside.txt'))).toBe(false);
    expect(denied).toEqual([
      `[Denied] Gemini CLI asked to write ${dir}/outside.txt; Gemini CLI refused it: it is outside the worktree.`,
    ]);
    expect(tools).toEqual([]);
  });

  it('Plan mode runs Gemini CLI in its own plan mode: no shell tool is offered and nothing is written', async () => {
    await turn('gemini', 'plan', { toolCall: { kind: 'shell', command: 'printf x > hello.txt' } });

    const tools = JSON.stringify(
      (server.modelRequests('gemini')[0]?.body as { tools?: unknown } | undefined)?.tools ?? [],
    );
    expect(tools).not.toContain('run_shell_command');
    expect(tools).toContain('exit_plan_mode');
    expect(existsSync(join(repo, 'hello.txt'))).toBe(false);
  });
});

describe('Claude Code', () => {
  it('a Write outside the worktree is denied in Auto Edit over the permission prompt, with a transcript line', async () => {
    const denied = await turn('claude', 'auto_edit', {
      toolCall: { kind: 'write_file', path: '../outside.txt', content: 'x' },
    });

    expect(existsSync(join(dir, 'outside.txt'))).toBe(false);
    expect(denied).toEqual([
      `[Denied] Claude Code asked to use Write on ${dir}/outside.txt; Grove denied it: it writes ${dir}/outside.txt, outside what the agent may write.`,
    ]);
    // Claude Code asked Grove (its stdio permission prompt), and the model was told why not.
    expect(
      server
        .modelRequests('anthropic')
        .some((r) => JSON.stringify(r.body).includes('Grove denied this request: it writes')),
    ).toBe(true);
    // Told once: no "Wrote … (failed)" line beside it.
    expect(tools).toEqual([]);
  });

  it('Read Only offers no tool that writes', async () => {
    await turn('claude', 'read_only', {
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'x' },
    });

    const tools = (
      (server.modelRequests('anthropic')[0]?.body as { tools?: { name: string }[] } | undefined)
        ?.tools ?? []
    ).map((t) => t.name);
    expect(tools).not.toContain('Write');
    expect(tools).not.toContain('Bash');
    expect(existsSync(join(repo, 'hello.txt'))).toBe(false);
  });
});
