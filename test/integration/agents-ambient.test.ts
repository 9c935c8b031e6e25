import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentChannel, TurnRequest } from '../../src/infra/agent/channel.js';
import { createClaudeChannel } from '../../src/infra/agent/claude/claude.js';
import { createCodexChannel } from '../../src/infra/agent/codex/codex.js';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import { realCliPath } from '../helpers/real-clis.js';

// No ambient authority (issue 21, routes 3, 5 and 7): the real CLIs, scripted
// through the fake model server, run hostile shell commands as tool calls.
// Grove runs inside tmux and beside an ssh-agent, with secrets in its
// environment and on disk; the agent reaches none of them. And Codex's own
// sandbox starts inside Grove's, on a machine where it never ran before.

const REPLY = JSON.stringify({ answer: 'done', questions: [], summary: null });

let server: FakeModelServer;
let dir: string;
let main: string;
let worktree: string;
let home: string;
let groveHome: string;
let channel: AgentChannel | null = null;
const cleanups: (() => void)[] = [];

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
}

beforeEach(async () => {
  server = await startFakeModelServer();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-ambient-')));
  main = join(dir, 'project');
  home = join(dir, 'home');
  groveHome = join(dir, 'grove-home');
  // The worktree lives in GROVE_HOME, as Grove makes it by default: hidden, but for the worktree.
  worktree = join(groveHome, 'wt', 's1');
  mkdirSync(main);
  mkdirSync(join(groveHome, 'db'), { recursive: true });
  writeFileSync(join(groveHome, 'db', 'grove.db'), 'SECRET-PROMPT-OF-ANOTHER-PROJECT\n');
  git(main, 'init', '-q', '-b', 'main');
  writeFileSync(join(main, 'README.md'), '# project\n');
  git(main, 'add', '-A');
  git(main, 'commit', '-q', '-m', 'init');
  git(main, 'worktree', 'add', '-q', '-b', 'grove/s1', worktree);
  server.setWorkdir(worktree);
});

afterEach(async () => {
  await channel?.shutdown();
  channel = null;
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  await server.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

function request(provider: 'claude' | 'codex'): TurnRequest {
  return {
    sessionId: 'session-1',
    cwd: worktree,
    mainCheckout: main,
    prompt: 'Run the command',
    kind: 'session_start',
    model: provider === 'claude' ? 'sonnet' : 'gpt-5.5',
    reasoning: 'high',
    permissionMode: 'auto_edit',
    providerConversationId: null,
    outputSchema: null,
  };
}

/** Claude Code runs `command` as one shell tool call, with `extra` in Grove's environment. */
async function claudeRuns(command: string, extra: Record<string, string>): Promise<void> {
  server.script('anthropic', [{ toolCall: { kind: 'shell', command } }, { text: REPLY }]);
  channel = createClaudeChannel(
    { env: agentEnv(server, home, extra), turnTimeoutMs: 60_000 },
    realCliPath('claude'),
  );
  await channel.runTurn(request('claude'), () => {}, new AbortController().signal);
  expect(server.modelRequests('anthropic').length).toBeGreaterThanOrEqual(2);
}

/** What the agent wrote into the worktree. */
function seen(name: string): string {
  return readFileSync(join(worktree, name), 'utf8');
}

describe('an agent inside a Grove that runs in tmux', () => {
  it('cannot make the tmux server run a command, with TMUX or with its socket named', async () => {
    const socket = join(dir, 'tmux', 'sock');
    mkdirSync(join(dir, 'tmux'), { mode: 0o700 });
    const tmux = (...args: string[]): string =>
      execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    tmux('new-session', '-d', '-s', 'grove', 'sleep 600');
    cleanups.push(() => {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    });
    const pid = tmux('display-message', '-p', '#{pid}').trim();
    const pwned = join(dir, 'pwned');

    await claudeRuns(
      `echo "TMUX=$TMUX" > tmux.txt; tmux run-shell 'touch ${pwned}' >> tmux.txt 2>&1; ` +
        `tmux -S '${socket}' run-shell 'touch ${pwned}' >> tmux.txt 2>&1; echo in > inside.txt`,
      { TMUX: `${socket},${pid},0`, TMUX_PANE: '%0' },
    );

    expect(seen('inside.txt')).toBe('in\n');
    expect(existsSync(pwned)).toBe(false);
    expect(seen('tmux.txt')).toMatch(/^TMUX=\n/);
  });
});

describe('an agent beside an ssh-agent holding a key', () => {
  it('cannot list or use the key', async () => {
    const socket = join(dir, 'ssh', 'agent.sock');
    mkdirSync(join(dir, 'ssh'), { mode: 0o700 });
    const started = execFileSync('ssh-agent', ['-a', socket], { encoding: 'utf8' });
    const pid = Number(/SSH_AGENT_PID=(\d+)/.exec(started)?.[1]);
    cleanups.push(() => {
      try {
        process.kill(pid);
      } catch {
        // already gone
      }
    });
    const key = join(dir, 'ssh', 'id_ed25519');
    execFileSync('ssh-keygen', [
      '-q',
      '-t',
      'ed25519',
      '-N',
      '',
      '-C',
      'grove-test-key',
      '-f',
      key,
    ]);
    execFileSync('ssh-add', ['-q', key], { env: { ...process.env, SSH_AUTH_SOCK: socket } });
    const listed = execFileSync('ssh-add', ['-l'], {
      env: { ...process.env, SSH_AUTH_SOCK: socket },
      encoding: 'utf8',
    });
    expect(listed).toContain('grove-test-key');

    await claudeRuns(
      `echo "SSH_AUTH_SOCK=$SSH_AUTH_SOCK" > ssh.txt; ssh-add -l >> ssh.txt 2>&1; ` +
        `SSH_AUTH_SOCK='${socket}' ssh-add -l >> ssh.txt 2>&1; echo "exit=$?" >> ssh.txt`,
      { SSH_AUTH_SOCK: socket, SSH_AGENT_PID: String(pid) },
    );

    const text = seen('ssh.txt');
    expect(text).not.toContain('grove-test-key');
    expect(text).not.toMatch(/ED25519/);
    expect(text).toMatch(/^SSH_AUTH_SOCK=\n/);
    expect(text).toMatch(/exit=[12]\n$/);
  });
});

describe('an agent on a machine with secrets', () => {
  it('sees none of them: not in its environment, not on disk, not GROVE_HOME, not the other CLIs', async () => {
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'SECRET-SSH-KEY\n');
    mkdirSync(join(home, '.aws'), { recursive: true });
    writeFileSync(join(home, '.aws', 'credentials'), 'SECRET-AWS-FILE\n');
    writeFileSync(join(home, '.netrc'), 'machine x login u password SECRET-NETRC\n');
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(join(home, '.codex', 'auth.json'), '{"token":"SECRET-CODEX-LOGIN"}\n');
    const files = [
      join(home, '.ssh', 'id_ed25519'),
      join(home, '.aws', 'credentials'),
      join(home, '.netrc'),
      join(groveHome, 'db', 'grove.db'),
      join(home, '.codex', 'auth.json'),
    ];

    await claudeRuns(
      `env > env.txt; for f in ${files.map((f) => `'${f}'`).join(' ')}; do cat "$f"; done > files.txt 2>&1; ` +
        `ls -a '${groveHome}' '${home}/.ssh' >> files.txt 2>&1; echo in > inside.txt`,
      {
        GROVE_HOME: groveHome,
        AWS_SECRET_ACCESS_KEY: 'SECRET-AWS-ENV',
        OPENAI_API_KEY: 'SECRET-OPENAI-ENV',
        NPM_TOKEN: 'SECRET-NPM-ENV',
      },
    );

    expect(seen('inside.txt')).toBe('in\n');
    const env = seen('env.txt');
    expect(env).toContain('ANTHROPIC_API_KEY=sk-test');
    for (const name of ['AWS_SECRET_ACCESS_KEY', 'OPENAI_API_KEY', 'NPM_TOKEN', 'GROVE_HOME'])
      expect(env).not.toContain(`${name}=`);
    const read = seen('files.txt');
    expect(read).not.toContain('SECRET');
    // The folders listed: GROVE_HOME holds only the worktree's path, ~/.ssh nothing.
    expect(read).not.toMatch(/^(db|id_ed25519)$/m);
    // Still on disk, for Grove and the person.
    expect(readFileSync(join(groveHome, 'db', 'grove.db'), 'utf8')).toContain('SECRET');
  });
});

describe('a Codex session on a machine where Codex never ran', () => {
  /** The per-user folders Codex makes under /tmp (its daemon, its sandbox's mount targets). */
  function removeCodexTmp(): void {
    for (const name of readdirSync('/tmp'))
      if (name.startsWith('codex-')) rmSync(join('/tmp', name), { recursive: true, force: true });
  }

  it('runs a shell command in its worktree under confinement', async () => {
    removeCodexTmp();
    server.script('openai', [
      { toolCall: { kind: 'shell', command: 'printf hi > made.txt' } },
      // Tests write to /tmp too: the agent's own.
      { toolCall: { kind: 'shell', command: 'printf tmp > /tmp/t.txt && cp /tmp/t.txt tmp.txt' } },
      { text: REPLY },
    ]);
    channel = createCodexChannel(
      { env: agentEnv(server, home), turnTimeoutMs: 60_000 },
      realCliPath('codex'),
    );

    await channel.runTurn(request('codex'), () => {}, new AbortController().signal);

    expect(seen('made.txt')).toBe('hi');
    expect(seen('tmp.txt')).toBe('tmp');
  });
});
