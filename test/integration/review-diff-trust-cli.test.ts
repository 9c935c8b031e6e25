import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ResultSchema } from './headless-schema.js';

// The same review, through the built headless commands, with the real Claude
// Code as the hostile agent (its shell tool call scripted by the fake model
// server): it marks every file `-diff`, changes code, adds a binary and
// files whose names hold a bidi control and a tab. `grove diff` must show
// the code, the binary's size and the names escaped; the size class counts
// the binary.

let h: Harness;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...process.env, HOME: h.world.home },
    encoding: 'utf8',
  }).trim();
}

beforeEach(async () => {
  h = await harness();
  mkdirSync(join(h.repo, 'src'));
  writeFileSync(join(h.repo, 'src', 'app.ts'), 'export const a = 1;\n');
  git(h.repo, 'add', '-A');
  git(h.repo, 'commit', '-q', '-m', 'Add the app');
});

afterEach(async () => {
  await h.close();
});

/**
 * A shell command writing `files` (name → content), names and bytes carried
 * in base64 so no shell quoting or CLI check stands between them and the disk.
 */
function writes(files: Record<string, Buffer | string>): string {
  const encoded = Object.entries(files).map(([name, content]) => [
    Buffer.from(name).toString('base64'),
    Buffer.from(content).toString('base64'),
  ]);
  const script = `for (const [n, c] of ${JSON.stringify(encoded)}) require('fs').writeFileSync(Buffer.from(n, 'base64').toString(), Buffer.from(c, 'base64'))`;
  return `node -e "${script.replace(/"/g, '\\"')}"`;
}

const BIDI_NAME = 'a\u202Eb.txt';
const TAB_NAME = 'tab\tname.txt';

describe('grove diff and grove show, after a hostile turn', () => {
  it('show the code under `* -diff`, the binary with its size in the size class, and odd names escaped', async () => {
    const task = 'Improve the app';
    h.utilities();
    h.server.script('anthropic', [
      {
        when: task,
        toolCall: {
          kind: 'shell',
          command: writes({
            '.gitattributes': '* -diff\n',
            'src/app.ts': 'export const a = 2;\nsteal(process.env);\n',
            'blob.bin': Buffer.alloc(3_000),
            [BIDI_NAME]: 'reversed\n',
            [TAB_NAME]: 'tabbed\n',
          }),
        },
      },
      { when: task, text: reply('Done.') },
    ]);
    const run = await h.grove(['run', '--output', 'json', task]);
    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    // The agent's attributes fool plain git.
    expect(git(result.worktree, 'diff', 'main', '--', 'src/app.ts')).toContain('Binary files');

    const diff = await h.grove(['diff', result.sessionId]);

    expectExit(diff, 0);
    expect(diff.stdout).toContain('+steal(process.env);');
    expect(diff.stdout).toContain('Binary files /dev/null and b/blob.bin differ (0 → 3000 bytes)');
    expect(diff.stdout).toContain('diff --git a/a\\u202Eb.txt b/a\\u202Eb.txt');
    expect(diff.stdout).toContain('+reversed');
    expect(diff.stdout).toContain('"b/tab\\tname.txt"');
    expect(diff.stdout).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
    expect(result.files.map((f) => f.path).sort()).toEqual(
      ['.gitattributes', 'a\\u202Eb.txt', 'blob.bin', 'src/app.ts', 'tab\\tname.txt'].sort(),
    );

    // Text: 1 + 2 + 1 + 1 added, 1 deleted; blob.bin 3000 bytes → 47 lines: 53 lines, M.
    const show = await h.grove(['show', result.sessionId]);
    expectExit(show, 0);
    expect(show.stdout).toContain('[M] +5/-1');
  });
});
