import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installAcpAgent } from '../helpers/acp-agent.js';
import { git } from '../helpers/grove-env.js';
import { expectExit, harness, show, type Harness } from './headless-harness.js';
import { ShowSchema } from './headless-schema.js';

// An agent CLI named in GROVE_HOME/agents.json, spoken to over the Agent
// Client Protocol: the small ACP agent of test/fixtures/acp-agent, driven by
// the built binary (`grove run --agent tiny`) with real git and SQLite, in
// the same sandbox as the built-in agents. Titles and commit messages still
// come from the real Claude Code against the fake model server.

let h: Harness;

/** The fixture on the world's PATH, named `tiny` (or as `config` says) in agents.json. */
function installFixture(config?: unknown): void {
  installAcpAgent(h.world, config);
}

function sessionBranch(): string {
  const [branch] = git(h.repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/')
    .split('\n')
    .filter(Boolean);
  if (!branch) throw new Error('no session branch');
  return branch;
}

async function showJson(id: string) {
  const run = await h.grove(['show', id, '--json']);
  expectExit(run, 0);
  return ShowSchema.parse(JSON.parse(run.stdout));
}

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

describe('an ACP agent named in agents.json', () => {
  it('runs a turn with grove run --agent NAME: its permitted write lands on the session branch', async () => {
    installFixture();
    h.utilities('Write the note', 'Add the note\n\nWrites acp-note.txt.');

    const run = await h.grove(['run', '--agent', 'tiny', '--output', 'json', 'Write the note']);

    expectExit(run, 0);
    const result = JSON.parse(run.stdout) as { sessionId: string; answer: string; agent: string };
    expect(result.answer).toBe('note written');
    expect(result.agent).toBe('acp:tiny');
    const branch = sessionBranch();
    expect(git(h.repo, 'show', `${branch}:acp-note.txt`)).toBe('written by the ACP agent');
    expect(git(h.repo, 'log', '-1', '--format=%s', branch)).toBe('Add the note');
    expect(git(h.repo, 'status', '--porcelain')).toBe('');
    const shown = await showJson(result.sessionId);
    const lines = shown.transcript.map((e) => e.content).join('\n');
    expect(lines).toContain('Edited: Write acp-note.txt');
    // It reported no usage: said so, and nothing is made up for it.
    expect(lines).toContain('[Usage] tiny reports no token usage');
  });

  it('cannot write outside its worktree: the sandbox refuses a write to HOME and to the main checkout', async () => {
    installFixture();
    h.utilities();
    const home = join(h.world.home, 'escaped.txt');
    const main = join(h.repo, 'escaped.txt');

    const run = await h.grove([
      'run',
      '--agent',
      'tiny',
      `Write the note. ESCAPE:${home} ESCAPE:${main}`,
    ]);

    expectExit(run, 0);
    expect(run.stdout).toMatch(new RegExp(`${home} refused \\(E[A-Z]+\\)`));
    expect(run.stdout).toMatch(new RegExp(`${main} refused \\(E[A-Z]+\\)`));
    expect(existsSync(home)).toBe(false);
    expect(existsSync(main)).toBe(false);
    expect(git(h.repo, 'status', '--porcelain')).toBe('');
  });

  it("gets the allow-listed environment: no built-in agent's key, no GROVE_HOME", async () => {
    installFixture();
    h.utilities();

    const run = await h.grove([
      'run',
      '--agent',
      'tiny',
      'Write the note. ENV:PATH ENV:ANTHROPIC_API_KEY ENV:GEMINI_API_KEY ENV:GROVE_HOME',
    ]);

    expectExit(run, 0);
    expect(run.stdout).toContain(
      'PATH set; ANTHROPIC_API_KEY unset; GEMINI_API_KEY unset; GROVE_HOME unset',
    );
  });

  it('reaches the network only through the filter: a host not allowed is refused, with a transcript line', async () => {
    installFixture();
    h.utilities();

    const run = await h.grove([
      'run',
      '--agent',
      'tiny',
      '--output',
      'json',
      'Write the note. NETWORK:example.com',
    ]);

    expectExit(run, 0);
    const result = JSON.parse(run.stdout) as { sessionId: string; answer: string };
    expect(result.answer).toMatch(/example\.com HTTP\/1\.1 403/);
    const shown = await showJson(result.sessionId);
    expect(shown.transcript.map((e) => e.content).join('\n')).toContain(
      'network: blocked example.com:443',
    );
  });

  it('in read-only mode its permission request is denied, with a [Denied] line, and nothing is written', async () => {
    installFixture();
    h.utilities();

    const run = await h.grove([
      'run',
      '--agent',
      'tiny',
      '--mode',
      'read-only',
      '--output',
      'json',
      'Write the note',
    ]);

    expectExit(run, 0);
    const result = JSON.parse(run.stdout) as { sessionId: string; answer: string };
    expect(result.answer).toBe('note not written');
    const shown = await showJson(result.sessionId);
    const lines = shown.transcript.map((e) => e.content).join('\n');
    expect(lines).toContain(
      '[Denied] tiny asked to edit acp-note.txt; Grove denied it: the session is in Read Only mode.',
    );
    expect(git(h.repo, 'rev-list', '--count', `main..${sessionBranch()}`)).toBe('0');
  });

  it('in read-only and plan mode cannot write its worktree even without asking; in auto-edit it can again', async () => {
    installFixture();
    h.utilities();

    const run = await h.grove([
      'run',
      '--agent',
      'tiny',
      '--mode',
      'read-only',
      '--output',
      'json',
      'Look around. ESCAPE:direct.txt',
    ]);

    expectExit(run, 0);
    const result = JSON.parse(run.stdout) as { sessionId: string; answer: string };
    expect(result.answer).toMatch(/direct\.txt refused \(EROFS\)/);
    expect(git(h.repo, 'rev-list', '--count', `main..${sessionBranch()}`)).toBe('0');

    const plan = await h.grove([
      'reply',
      result.sessionId,
      '--mode',
      'plan',
      '--output',
      'json',
      'Plan it. ESCAPE:planned.txt',
    ]);
    expectExit(plan, 0);
    expect((JSON.parse(plan.stdout) as { answer: string }).answer).toMatch(
      /planned\.txt refused \(EROFS\)/,
    );

    const edit = await h.grove([
      'reply',
      result.sessionId,
      '--mode',
      'auto-edit',
      '--output',
      'json',
      'Now do it. ESCAPE:direct.txt',
    ]);
    expectExit(edit, 0);
    expect((JSON.parse(edit.stdout) as { answer: string }).answer).toMatch(/direct\.txt written/);
    expect(git(h.repo, 'show', `${sessionBranch()}:direct.txt`)).toBe('escaped');
  });

  it('counts the tokens it reports in its session/prompt usage', async () => {
    installFixture();
    h.utilities();

    const run = await h.grove([
      'run',
      '--agent',
      'tiny',
      '--output',
      'json',
      'Write the note. USAGE',
    ]);

    expectExit(run, 0);
    const result = JSON.parse(run.stdout) as { sessionId: string };
    const shown = await showJson(result.sessionId);
    expect(shown.usage.inputTokens).toBeGreaterThanOrEqual(1200);
    expect(shown.usage.outputTokens).toBeGreaterThanOrEqual(34);
    expect(shown.transcript.map((e) => e.content).join('\n')).not.toContain('[Usage]');
  });

  it('shows nothing it prints as terminal control: its escape sequences are sanitized', async () => {
    installFixture();
    h.utilities();

    const run = await h.grove(['run', '--agent', 'tiny', '--progress', 'Write the note. HOSTILE']);

    expectExit(run, 0);
    expect(run.stdout).toContain('note written');
    expect(run.stdout + run.stderr).not.toContain('\u001b');
    expect(run.stdout + run.stderr).not.toContain('\u0007');
  });

  it('goes on with its conversation in a later grove reply, replayed from the transcript', async () => {
    installFixture();
    h.utilities();
    const first = await h.grove(['run', '--agent', 'tiny', '--output', 'json', 'Write the note']);
    expectExit(first, 0);
    const { sessionId } = JSON.parse(first.stdout) as { sessionId: string };
    h.utilities('Write the note', 'Add the note again');

    const reply = await h.grove(['reply', sessionId, 'Write it again']);

    expectExit(reply, 0);
    expect(reply.stdout).toBe('note written\n');
    const shown = await showJson(sessionId);
    expect(shown.agent).toBe('acp:tiny');
    expect(shown.transcript.map((e) => e.content).join('\n')).toContain(
      '[Resume] tiny could not reload its session; Grove replayed the conversation (1 turn).',
    );
  });

  it('an agents.json with a mistake is refused whole: --agent says why, and doctor fails on it', async () => {
    installFixture({ agents: { tiny: { command: 'acp-fixture', argv: ['x'] } } });

    const run = await h.grove(['run', '--agent', 'tiny', 'Write the note']);

    expect(run.code, show(run)).toBe(2);
    expect(run.stderr).toContain("agent 'tiny' has an unknown field 'argv'");
    expect(run.stderr).toContain('no agent of it is offered');
    const doctor = await h.grove(['doctor']);
    expect(doctor.stdout).toMatch(/^fail\s+agents\.json\s+.*unknown field 'argv'/m);
  });

  it('doctor says whether its command is found', async () => {
    installFixture({
      agents: {
        tiny: { command: 'acp-fixture', args: ['--stdio'] },
        gone: { command: 'no-such-acp-agent' },
      },
    });

    const doctor = await h.grove(['doctor']);

    expect(doctor.stdout).toMatch(/^ok\s+tiny\s+ACP agent: `acp-fixture --stdio`, found at \//m);
    expect(doctor.stdout).toMatch(
      /^warn\s+gone\s+ACP agent: its command `no-such-acp-agent` is not found/m,
    );
  });
});
