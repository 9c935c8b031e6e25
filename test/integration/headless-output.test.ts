import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROVE_BIN, git } from '../helpers/grove-env.js';
import { seedSessions } from '../helpers/seed.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ListSchema, ResultSchema } from './headless-schema.js';

// Output that arrives whole: the built binary's stdout and stderr piped into
// another program (wc -c, head -c, a reader that takes its time) carry every
// byte a file gets, with the exit code the command means; a reader that
// stops early ends the command quietly with 141 (docs/usage/cli.md, "Exit
// codes"). A pipe holds 64 KiB: every output here is far larger.

let h: Harness;
let diffId: string;
let showId: string;
/** The ~1 MB file the diff session adds. */
let big: string;
let slowReader: string;

const SESSIONS = 600;
const TITLE = 'x'.repeat(1500);

beforeAll(async () => {
  h = await harness();
  // Session 1 has a real branch and worktree (where the seed puts it) with a ~1 MB change.
  const worktree = `${h.repo}-wt-1`;
  git(h.repo, 'worktree', 'add', '-q', '-b', 'grove/00000001', worktree, 'main');
  big = Array.from(
    { length: 20_000 },
    (_, i) => `line ${i} of the big file, with some words to make it longer\n`,
  ).join('');
  writeFileSync(join(worktree, 'big.txt'), big);
  git(worktree, 'add', 'big.txt');
  git(worktree, '-c', 'user.name=T', '-c', 'user.email=t@t.invalid', 'commit', '-q', '-m', 'Big');
  // Session 2 has a long transcript; all of them have long titles (ls --json is ~1 MB).
  const ids = await seedSessions(
    h.world.groveHome,
    h.repo,
    Array.from({ length: SESSIONS }, (_, i) => ({
      title: `Session ${i + 1} ${TITLE}`,
      status: 'Review' as const,
      ...(i === 1
        ? {
            transcript: [
              ['user_prompt', 'Explain everything'],
              ['assistant_answer', 'answer line\n'.repeat(40_000)],
            ] as const,
          }
        : {}),
    })),
  );
  diffId = ids[0]!.slice(0, 8);
  showId = ids[1]!.slice(0, 8);
  slowReader = join(h.world.dir, 'slow-reader.mjs');
  // Starts reading after 300 ms, then reads a chunk, waits 20 ms, reads the
  // next; prints all it read at the end.
  writeFileSync(
    slowReader,
    `const chunks = [];
process.stdin.pause();
setTimeout(() => process.stdin.resume(), 300);
process.stdin.on('data', (chunk) => {
  chunks.push(chunk);
  process.stdin.pause();
  setTimeout(() => process.stdin.resume(), 20);
});
process.stdin.on('end', () => process.stdout.write(Buffer.concat(chunks)));
`,
  );
});

afterAll(async () => {
  await h.close();
});

/** Byte for byte, without printing megabytes when they differ. */
function expectSame(actual: Buffer | string, expected: Buffer | string): void {
  const [a, b] = [Buffer.from(actual), Buffer.from(expected)];
  expect(a.length).toBe(b.length);
  expect(a.equals(b), 'the bytes differ').toBe(true);
}

interface Piped {
  /** grove's own exit code. */
  readonly code: number;
  /** What the reader printed. */
  readonly out: Buffer;
  /** grove's other stream, whole (it goes to a file). */
  readonly other: string;
}

/**
 * `grove ARGS | READER` in bash: grove's stdout (or, with `stream: 'stderr'`,
 * its stderr) into the reader, nothing else holding the pipe; the other
 * stream to a file.
 */
async function pipeline(
  args: readonly string[],
  reader: string,
  stream: 'stdout' | 'stderr' = 'stdout',
): Promise<Piped> {
  const dir = join(h.world.dir, `pipe-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  const [otherFile, codeFile] = [join(dir, 'other'), join(dir, 'code')];
  const grove = `"$NODE" "$GROVE" "$@"`;
  const script =
    stream === 'stdout'
      ? `${grove} 2>"$OTHER" | ${reader}; echo "\${PIPESTATUS[0]}" >"$CODE"`
      : `${grove} 2>&1 >"$OTHER" | ${reader}; echo "\${PIPESTATUS[0]}" >"$CODE"`;
  const child = spawn('bash', ['-c', script, 'bash', ...args], {
    cwd: h.repo,
    env: {
      ...h.env,
      NODE: process.execPath,
      GROVE: GROVE_BIN,
      OTHER: otherFile,
      CODE: codeFile,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  await new Promise((resolve) => child.on('close', resolve));
  return {
    code: Number(readFileSync(codeFile, 'utf8').trim()),
    out: Buffer.concat(chunks),
    other: readFileSync(otherFile, 'utf8'),
  };
}

/** `grove ARGS > FILE`: what a file gets. */
async function toFile(args: readonly string[]): Promise<{ code: number; out: Buffer }> {
  const file = join(h.world.dir, `file-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const child = spawn(
    'bash',
    ['-c', '"$NODE" "$GROVE" "$@" >"$FILE" 2>/dev/null', 'bash', ...args],
    {
      cwd: h.repo,
      env: { ...h.env, NODE: process.execPath, GROVE: GROVE_BIN, FILE: file },
      stdio: 'ignore',
    },
  );
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { code, out: readFileSync(file) };
}

describe('grove diff', () => {
  it('a ~1 MB diff arrives byte for byte through wc -c, cat and a slow reader, as in a file', async () => {
    const file = await toFile(['diff', diffId]);
    expect(file.code).toBe(0);
    expect(file.out.length).toBeGreaterThan(1_000_000);
    // Every line of the file is in the patch, in order.
    const added = file.out
      .toString('utf8')
      .split('\n')
      .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
      .map((l) => `${l.slice(1)}\n`)
      .join('');
    expectSame(added, big);

    const counted = await pipeline(['diff', diffId], 'wc -c');
    expect(counted.code).toBe(0);
    expect(Number(counted.out.toString().trim())).toBe(file.out.length);

    const slow = await pipeline(['diff', diffId], `"$NODE" ${JSON.stringify(slowReader)}`);
    expect(slow.code).toBe(0);
    expect(slow.other).toBe('');
    expectSame(slow.out, file.out);
  });

  it('a reader that stops after 100 bytes ends it quietly, with 141', async () => {
    const file = await toFile(['diff', diffId]);
    const head = await pipeline(['diff', diffId], 'head -c 100');
    expectSame(head.out, file.out.subarray(0, 100));
    expect(head.other).toBe('');
    expect(head.code).toBe(141);
  });
});

describe('grove ls --json', () => {
  it(`lists ${SESSIONS} sessions in full through a slow reader and wc -c`, async () => {
    const slow = await pipeline(['ls', '--json'], `"$NODE" ${JSON.stringify(slowReader)}`);
    expect(slow.code).toBe(0);
    expect(slow.other).toBe('');
    expect(slow.out.length).toBeGreaterThan(900_000);
    const list = ListSchema.parse(JSON.parse(slow.out.toString('utf8')));
    expect(list).toHaveLength(SESSIONS);
    expect(new Set(list.map((s) => s.title)).size).toBe(SESSIONS);

    const counted = await pipeline(['ls', '--json'], 'wc -c');
    expect(counted.code).toBe(0);
    expect(Number(counted.out.toString().trim())).toBe(slow.out.length);
  });

  it('| head -c 100 ends it quietly, with 141', async () => {
    const head = await pipeline(['ls', '--json'], 'head -c 100');
    expect(head.out.toString()).toMatch(/^\[\n {2}\{\n {4}"sessionId": "/);
    expect(head.out.length).toBe(100);
    expect(head.other).toBe('');
    expect(head.code).toBe(141);
  });
});

describe('a file that cannot take the output', () => {
  it('says so and exits with 1 (a full disk: /dev/full)', async () => {
    const child = spawn('bash', ['-c', '"$NODE" "$GROVE" ls --json >/dev/full'], {
      cwd: h.repo,
      env: { ...h.env, NODE: process.execPath, GROVE: GROVE_BIN },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toBe(
      'grove: could not write the output: ENOSPC: no space left on device, write\n',
    );
    expect(code).toBe(1);
  });
});

describe('grove show', () => {
  it('a long transcript arrives whole through a slow reader (--json and text)', async () => {
    const json = await pipeline(
      ['show', showId, '--json'],
      `"$NODE" ${JSON.stringify(slowReader)}`,
    );
    expect(json.code).toBe(0);
    expect(json.other).toBe('');
    const shown = JSON.parse(json.out.toString('utf8')) as { answer: string };
    expectSame(shown.answer, 'answer line\n'.repeat(40_000));

    const text = await pipeline(['show', showId], `"$NODE" ${JSON.stringify(slowReader)}`);
    const file = await toFile(['show', showId]);
    expect(text.code).toBe(0);
    expect(file.out.length).toBeGreaterThan(400_000);
    expectSame(text.out, file.out);
  });
});

describe('errors on standard error', () => {
  // An id of 120,000 characters: its "no session matches" message is larger than a pipe.
  const longId = 'f'.repeat(120_000);

  it('a long error message arrives whole, with its exit code', async () => {
    const slow = await pipeline(
      ['show', longId],
      `"$NODE" ${JSON.stringify(slowReader)}`,
      'stderr',
    );
    expect(slow.code).toBe(2);
    expect(slow.other).toBe('');
    expectSame(slow.out, `grove: no session matches '${longId}'\n`);
  });

  it('a long usage error arrives whole, with 2', async () => {
    const slow = await pipeline(
      ['ls', `--${longId}`],
      `"$NODE" ${JSON.stringify(slowReader)}`,
      'stderr',
    );
    expect(slow.code).toBe(2);
    expectSame(
      slow.out,
      `grove: Unknown option '--${longId}'\nUsage: grove ls [-C DIR] [--json] [--all]\nTry 'grove ls --help' for more.\n`,
    );
  });
});

describe('grove run', () => {
  it('a long answer arrives whole through a slow reader', async () => {
    const answer = 'All done.\n'.repeat(30_000);
    h.utilities();
    h.server.script('anthropic', [{ when: 'Write the long answer', text: reply(answer) }]);
    const slow = await pipeline(
      ['run', '--output', 'json', 'Write the long answer'],
      `"$NODE" ${JSON.stringify(slowReader)}`,
    );
    expectExit(
      { code: slow.code, signal: null, stdout: slow.out.toString(), stderr: slow.other },
      0,
    );
    const result = ResultSchema.parse(JSON.parse(slow.out.toString('utf8')));
    expectSame(result.answer.trim(), answer.trim());
  });

  it('a reader that stops after the first line ends nothing: the turn finishes, quietly, with 141', async () => {
    const prompt = 'Create hello.txt and report';
    h.utilities();
    h.server.script('anthropic', [
      { when: prompt, toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' } },
      { when: prompt, text: reply('I created hello.txt.') },
    ]);
    const head = await pipeline(['run', '--output', 'stream-json', prompt], 'head -n 1');
    const first = JSON.parse(head.out.toString()) as { type: string; sessionId: string };
    expect(first.type).toBe('session');
    expect(head.other).toBe('');
    expect(head.code).toBe(141);
    // The turn ran to its end: the session is in Review with its work.
    const shown = await h.grove(['show', first.sessionId.slice(0, 8), '--json']);
    expectExit(shown, 0);
    const session = JSON.parse(shown.stdout) as { status: string; worktree: string };
    expect(session.status).toBe('Review');
    expect(readFileSync(join(session.worktree, 'hello.txt'), 'utf8')).toBe('hello\n');
  });
});
