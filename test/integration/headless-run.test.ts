import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { realCliPath } from '../helpers/real-clis.js';
import { expectExit, reply, until } from './headless-harness.js';
import {
  h,
  helloTurn,
  sessionBranches,
  setUpHeadlessRun,
  showJson,
  turnRequests,
} from './headless-run-world.js';
import { ListSchema, ResultSchema, StreamEventSchema } from './headless-schema.js';

// `grove run`: the built binary, the real Claude Code, the fake model server,
// a real repository and a real SQLite store. A reply or cancel from another
// process: headless-run-reply.test.ts; --mode: headless-run-mode.test.ts.

setUpHeadlessRun();

describe('grove run', () => {
  it('prints the answer on stdout, nothing on stderr, and commits the work on the session branch', async () => {
    helloTurn('Create hello.txt');

    const run = await h.grove(['run', 'Create hello.txt with a greeting']);

    expectExit(run, 0);
    expect(run.stdout).toBe('I created **hello.txt**.\n');
    expect(run.stderr).toBe('');
    const [branch] = sessionBranches();
    expect(branch).toMatch(/^grove\/[0-9a-f]{8}$/);
    expect(git(h.repo, 'rev-list', '--count', `main..${branch ?? ''}`)).toBe('1');
    expect(git(h.repo, 'log', '-1', '--format=%s', branch ?? '')).toBe('Add the greeting');
    expect(git(h.repo, 'show', `${branch ?? ''}:hello.txt`)).toBe('hello\nworld');
    // The main checkout is untouched.
    expect(git(h.repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(h.repo, 'hello.txt'))).toBe(false);
  });

  it('--progress shows what the agent does on stderr, keeping stdout for the answer', async () => {
    helloTurn('Create hello.txt');

    const run = await h.grove(['run', '--progress', 'Create hello.txt with a greeting']);

    expectExit(run, 0);
    expect(run.stdout).toBe('I created **hello.txt**.\n');
    expect(run.stderr).toMatch(/^Session [0-9a-f]{8} on grove\/[0-9a-f]{8} \(/m);
    expect(run.stderr).toContain('[Commit] Add the greeting');
    expect(run.stderr).not.toContain('I created');
  });

  it('--output json prints one object of the documented shape', async () => {
    helloTurn('Create hello.txt');

    const run = await h.grove(['run', '--output', 'json', 'Create hello.txt with a greeting']);

    expectExit(run, 0);
    expect(run.stderr).toBe('');
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({
      title: 'Add a greeting file',
      baseBranch: 'main',
      status: 'Review',
      agent: 'claude',
      answer: 'I created **hello.txt**.',
      summary: {
        turn: 'turn: I created **hello.txt**.',
        session: 'session: I created **hello.txt**.',
      },
      questions: [],
      files: [{ path: 'hello.txt', added: 2, deleted: 0 }],
      pullRequest: null,
    });
    expect(result.branch).toBe(`grove/${result.sessionId.slice(0, 8)}`);
    expect(sessionBranches()).toEqual([result.branch]);
    expect(readFileSync(join(result.worktree, 'hello.txt'), 'utf8')).toBe('hello\nworld\n');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.durationMs).toBeGreaterThan(0);

    // The same session, as `show --json` and `ls --json` see it.
    const shown = await showJson(result.sessionId);
    expect(shown).toMatchObject({
      sessionId: result.sessionId,
      status: 'Review',
      answer: result.answer,
      files: result.files,
      usage: result.usage,
    });
    expect(shown.transcript.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['user_prompt', 'assistant_answer']),
    );
    expect(shown.transcript.find((e) => e.kind === 'user_prompt')?.content).toBe(
      'Create hello.txt with a greeting',
    );
    const ls = await h.grove(['ls', '--json']);
    expectExit(ls, 0);
    const list = ListSchema.parse(JSON.parse(ls.stdout));
    expect(list).toEqual([
      expect.objectContaining({
        sessionId: result.sessionId,
        status: 'Review',
        added: 2,
        deleted: 0,
        size: 'XS',
        branch: result.branch,
        title: 'Add a greeting file',
      }),
    ]);
  });

  it('--output stream-json prints one JSON event per line, ending with the result', async () => {
    helloTurn('Create hello.txt');

    const run = await h.grove([
      'run',
      '--output',
      'stream-json',
      'Create hello.txt with a greeting',
    ]);

    expectExit(run, 0);
    expect(run.stderr).toBe('');
    expect(run.stdout.endsWith('\n')).toBe(true);
    const events = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => StreamEventSchema.parse(JSON.parse(line)));
    const first = events[0];
    const last = events.at(-1);
    if (first?.type !== 'session' || last?.type !== 'result')
      throw new Error(`unexpected first/last events:\n${run.stdout}`);
    expect(last.sessionId).toBe(first.sessionId);
    expect(last.branch).toBe(first.branch);
    expect(last.worktree).toBe(first.worktree);
    expect(last).toMatchObject({
      status: 'Review',
      answer: 'I created **hello.txt**.',
      files: [{ path: 'hello.txt', added: 2, deleted: 0 }],
    });
    const statuses = events.flatMap((e) => (e.type === 'status' ? [e.status] : []));
    expect(statuses).toContain('InProgress');
    expect(statuses.at(-1)).toBe('Review');
    const transcript = events.flatMap((e) => (e.type === 'transcript' ? e.entries : []));
    expect(transcript).toContainEqual({
      kind: 'user_prompt',
      content: 'Create hello.txt with a greeting',
    });
    expect(transcript).toContainEqual({
      kind: 'assistant_answer',
      content: 'I created **hello.txt**.',
    });
    expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
    // What the agent does, as it does it (before the result).
    const progress = events.flatMap((e, i) => (e.type === 'progress' ? [i] : []));
    expect(progress.length).toBeGreaterThan(0);
    expect(Math.max(...progress)).toBeLessThan(events.length - 1);
    expect(events.some((e) => e.type === 'progress' && e.text.includes('hello.txt'))).toBe(true);
  });

  it('--output diff prints the session diff', async () => {
    helloTurn('Create hello.txt');

    const run = await h.grove(['run', '--output', 'diff', 'Create hello.txt with a greeting']);

    expectExit(run, 0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('diff --git a/hello.txt b/hello.txt');
    expect(run.stdout).toContain('+hello\n+world\n');
    expect(run.stdout).not.toContain('I created');
  });

  it('starts the turn without asking any agent CLI for its --version', async () => {
    // Agent CLIs that note each --version asked of them, before the real ones on PATH.
    const asked = join(h.world.dir, 'asked-version');
    const noting = join(h.world.dir, 'noting-bin');
    mkdirSync(noting);
    for (const name of ['claude', 'codex', 'gemini'] as const) {
      const script = `#!/bin/sh\n[ "$1" = --version ] && echo ${name} >> '${asked}'\nexec '${realCliPath(name)}' "$@"\n`;
      writeFileSync(join(noting, name), script, { mode: 0o755 });
    }
    helloTurn('Create hello.txt');

    const run = await h.grove(['run', 'Create hello.txt with a greeting'], {
      env: { PATH: `${noting}:${h.env['PATH'] ?? ''}` },
    });

    expectExit(run, 0);
    expect(run.stdout).toBe('I created **hello.txt**.\n');
    expect(existsSync(asked) ? readFileSync(asked, 'utf8') : '').toBe('');
  });

  it('reads the prompt from standard input with - or without a prompt argument', async () => {
    helloTurn('Create hello.txt from stdin', 'From stdin.');
    const dash = await h.grove(['run', '-'], { input: 'Create hello.txt from stdin\n' });
    expectExit(dash, 0);
    expect(dash.stdout).toBe('From stdin.\n');

    h.utilities();
    h.server.script('anthropic', [{ when: 'A piped prompt', text: reply('Piped.') }]);
    const absent = await h.grove(['run', '--output', 'json'], { input: 'A piped prompt' });
    expectExit(absent, 0);
    const result = ResultSchema.parse(JSON.parse(absent.stdout));
    expect(result.answer).toBe('Piped.');
    expect(
      (await showJson(result.sessionId)).transcript.find((e) => e.kind === 'user_prompt')?.content,
    ).toBe('A piped prompt');
    expect(sessionBranches()).toHaveLength(2);
  });

  it('works on the repository in -C DIR from anywhere', async () => {
    helloTurn('Create hello.txt');

    const run = await h.grove(['run', '-C', h.repo, '--output', 'json', 'Create hello.txt'], {
      cwd: h.world.dir,
    });

    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(sessionBranches()).toEqual([result.branch]);
    expect(result.worktree.startsWith(h.world.groveHome)).toBe(true);
  });

  it('says so when the agent CLI is not installed (exit 1, no session)', async () => {
    const run = await h.grove(['run', 'Create hello.txt'], {
      env: { PATH: `${h.world.bin}:/usr/bin:/bin` },
    });

    expectExit(run, 1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'grove: claude is not installed (not found on PATH). Install it, or pick another agent with --agent.\nNo session was started. Your prompt was:\nCreate hello.txt\n',
    );
    expect(sessionBranches()).toEqual([]);
  });

  it('leaves no session behind when the worktree cannot be made (a repository with no commits), and gives the prompt back', async () => {
    const empty = join(h.world.dir, 'empty');
    mkdirSync(empty);
    git(empty, 'init', '-q', '-b', 'main');

    const run = await h.grove(['run', '-C', empty, 'A long prompt I do not want to type again']);

    expectExit(run, 1);
    expect(run.stderr).toMatch(/^grove: could not create the worktree: .*no commits yet/);
    expect(run.stderr).toContain(
      'No session was started. Your prompt was:\nA long prompt I do not want to type again\n',
    );
    const ls = await h.grove(['ls', '--all', '--json', '-C', empty]);
    expectExit(ls, 0);
    expect(JSON.parse(ls.stdout)).toEqual([]);
    expect(git(empty, 'for-each-ref', 'refs/heads/')).toBe('');
  });

  it('--output json with questions: exit 3 and the questions in the object', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Greet the user',
        text: reply('I need to know one thing.', {
          questions: [{ text: 'Which greeting?', options: ['hello', 'hi'] }],
        }),
      },
    ]);

    const run = await h.grove(['run', '--output', 'json', 'Greet the user']);

    expectExit(run, 3);
    expect(run.stderr).toBe('');
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({
      status: 'Question',
      answer: 'I need to know one thing.',
      questions: [{ text: 'Which greeting?', options: ['hello', 'hi'] }],
    });
  });

  it('refuses an empty prompt on standard input (usage error, no session)', async () => {
    const run = await h.grove(['run'], { input: '  \n' });

    expectExit(run, 2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('grove: the prompt on standard input is empty');
    expect(sessionBranches()).toEqual([]);
  });

  it('exits 3 with the questions, and `grove reply ID` answers them', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Greet the user',
        text: reply('', {
          questions: [{ text: 'Which greeting should I use?', options: ['hello', 'hi'] }],
        }),
      },
    ]);

    const asked = await h.grove(['run', 'Greet the user']);

    expectExit(asked, 3);
    expect(asked.stderr).toBe('');
    expect(asked.stdout).toContain(
      'The agent asks:\n1. Which greeting should I use?\n   - hello\n   - hi\n',
    );
    const id = /Answer with: grove reply ([0-9a-f]{8}) "\.\.\."/.exec(asked.stdout)?.[1];
    expect(id, asked.stdout).toBeDefined();
    const before = await showJson(id ?? '');
    expect(before.status).toBe('Question');
    expect(before.questions).toEqual([
      { text: 'Which greeting should I use?', options: ['hello', 'hi'] },
    ]);

    h.utilities('Greet the user', 'Add the greeting\n\nGreets with hi.');
    h.server.script('anthropic', [
      {
        when: 'Use hi please',
        toolCall: { kind: 'write_file', path: 'greeting.txt', content: 'hi\n' },
      },
      { when: 'Use hi please', text: reply('Used hi.') },
    ]);
    const answered = await h.grove(['reply', id ?? '', '--output', 'json', 'Use hi please']);

    expectExit(answered, 0);
    const result = ResultSchema.parse(JSON.parse(answered.stdout));
    expect(result).toMatchObject({
      sessionId: before.sessionId,
      status: 'Review',
      answer: 'Used hi.',
      questions: [],
      files: [{ path: 'greeting.txt', added: 1, deleted: 0 }],
    });
    // The follow-up continued the same Claude conversation.
    const last = h.server
      .modelRequests('anthropic')
      .filter((r) => JSON.stringify(r.body).includes('Use hi please'))
      .at(-1);
    expect(JSON.stringify(last?.body)).toContain('Greet the user');
  });

  it('exits 1 with a message when the agent fails, leaving the session in Review', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Fail please',
        error: {
          status: 401,
          body: {
            type: 'error',
            error: { type: 'authentication_error', message: 'invalid x-api-key' },
          },
        },
      },
    ]);

    const run = await h.grove(['run', '--output', 'json', 'Fail please']);

    expectExit(run, 1);
    expect(run.stderr).toMatch(/^grove: Claude Code is not signed in or its key was rejected: /);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.status).toBe('Review');
    const shown = await showJson(result.sessionId);
    expect(shown.status).toBe('Review');
    expect(
      shown.transcript.some(
        (e) => e.kind === 'notice' && /fail|error|401|api key/i.test(e.content),
      ),
    ).toBe(true);
    expect(existsSync(result.worktree)).toBe(true);
  });

  it('exits 1 when the model API rejects the request (HTTP 400), leaving the session in Review', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Bad request please',
        error: {
          status: 400,
          body: {
            type: 'error',
            error: {
              type: 'invalid_request_error',
              message: 'prompt is too long: 250000 tokens > 200000 maximum',
            },
          },
        },
      },
    ]);

    const run = await h.grove(['run', '--output', 'json', 'Bad request please']);

    expectExit(run, 1);
    expect(run.stderr).toMatch(/^grove: Claude Code reported an error: Prompt is too long/);
    expect(run.stderr).toContain('(HTTP 400)');
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.status).toBe('Review');
    expect(existsSync(result.worktree)).toBe(true);
  });

  it('exits 1 with the error on stderr in text mode too', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Fail please',
        error: {
          status: 401,
          body: {
            type: 'error',
            error: { type: 'authentication_error', message: 'invalid x-api-key' },
          },
        },
      },
    ]);

    const run = await h.grove(['run', 'Fail please']);

    expectExit(run, 1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^grove: Claude Code is not signed in or its key was rejected: /);
    expect(run.stderr).toContain('Sign-in:');
  });

  it('--timeout stops a slow turn: exit 4, work kept, session in Review', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'A slow task',
        toolCall: { kind: 'write_file', path: 'partial.txt', content: 'partial\n' },
      },
      { when: 'A slow task', delayMs: 60_000, then: { text: reply('too late') } },
    ]);

    // Long enough for the agent CLI to start and write its file on a loaded machine (4 s was not, on CI).
    const run = await h.grove(['run', '--timeout', '12s', '--output', 'json', 'A slow task']);

    expectExit(run, 4);
    expect(run.stderr).toMatch(
      /^grove: timed out; the turn was stopped and the session \([0-9a-f]{8}\) is in Review with its work kept\.\n$/,
    );
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.status).toBe('Review');
    expect(readFileSync(join(result.worktree, 'partial.txt'), 'utf8')).toBe('partial\n');
    expect(result.files).toEqual([{ path: 'partial.txt', added: 1, deleted: 0 }]);
    expect((await showJson(result.sessionId)).status).toBe('Review');
  });

  it('SIGINT during a turn stops it: exit 130, session in Review with its work intact', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'A very slow task',
        toolCall: { kind: 'write_file', path: 'partial.txt', content: 'partial\n' },
      },
      { when: 'A very slow task', delayMs: 60_000, then: { text: reply('too late') } },
    ]);
    const running = h.start(['run', '--progress', 'A very slow task']);
    // Wait until the agent has written its file and is waiting on the (slow) model.
    await until('the second model request', () => turnRequests('A very slow task').length >= 2);

    running.child.kill('SIGINT');
    const run = await running.done;

    expectExit(run, 130);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Stopping the turn');
    expect(run.stderr).toMatch(
      /grove: interrupted; the turn was stopped and the session \([0-9a-f]{8}\) is in Review with its work kept\.\n$/,
    );
    const list = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'])).stdout));
    expect(list).toHaveLength(1);
    const shown = await showJson(list[0]?.sessionId ?? '');
    expect(shown.status).toBe('Review');
    expect(readFileSync(join(shown.worktree, 'partial.txt'), 'utf8')).toBe('partial\n');
    expect(shown.transcript.some((e) => e.content.includes('You stopped the turn'))).toBe(true);
    const diff = await h.grove(['diff', shown.sessionId]);
    expect(diff.stdout).toContain('+partial');
  });
});
