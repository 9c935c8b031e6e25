import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DiffView } from '../../src/app/state.js';
import { git } from '../helpers/grove-env.js';
import { renderFrame } from '../helpers/render.js';
import { makeReviewWorld, waitFor, writeFiles, type ReviewWorld } from '../helpers/review-world.js';

// The review diff is what the person reads before anything lands, and the
// agent writes the files git takes attributes from: `.gitattributes` in its
// worktree and the shared `<common>/info/attributes`. Whatever those say,
// code shows as code, a file is binary by its content (and shown with its
// sizes, and counted in the size class), and a file name cannot reorder or
// split what the screen shows.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
  w.commitOnMain({ 'src/app.ts': 'export const a = 1;\n' }, 'Add the app');
});

afterEach(async () => {
  await w.close();
});

const CODE = 'export const a = 2;\nsteal(process.env);\n';

async function openDiff(sessionId: string): Promise<DiffView> {
  w.controller.openDiff(sessionId);
  const view = await waitFor('the diff to load', () =>
    w.app.state.diff?.sessionId === sessionId && !w.app.state.diff.loading
      ? w.app.state.diff
      : undefined,
  );
  expect(view.error).toBeNull();
  return view;
}

/** The text of a file's rows in the view (only added lines with `kind`). */
function rowTexts(view: DiffView, path: string, kind?: 'add'): string[] {
  const rows = view.files.find((f) => f.path === path)?.rows ?? [];
  return rows.filter((r) => kind === undefined || r.kind === kind).map((r) => r.text);
}

function expectCode(view: DiffView): void {
  const app = view.files.find((f) => f.path === 'src/app.ts');
  expect(app).toMatchObject({ binary: false, added: 2, deleted: 1, summarized: null });
  expect(rowTexts(view, 'src/app.ts', 'add')).toEqual([
    'export const a = 2;',
    'steal(process.env);',
  ]);
}

/** Every diff Grove reads for review, through the git client the app uses. */
async function expectCodeEverywhere(worktree: string, branch: string): Promise<void> {
  const { git: client } = w.infra;
  const [against, ofBranch, stats] = await Promise.all([
    client.diffAgainstBase(worktree, 'main'),
    client.diffOfBranch(w.repo, branch, 'main'),
    client.diffStats(worktree, 'main'),
  ]);
  for (const diff of [against, ofBranch]) {
    expect(diff.patch).toContain('+steal(process.env);');
    expect(diff.patch).not.toContain('Binary files');
  }
  expect(stats.files.find((f) => f.path === 'src/app.ts')).toMatchObject({
    binary: false,
    added: 2,
    deleted: 1,
  });
  // The diff a turn's commit message is written from (it stages everything, as the commit does).
  const staged = await client.stageAllAndDiff(worktree, 'main');
  expect(staged.patch).toContain('+steal(process.env);');
}

describe('the review diff ignores attributes the agent can write', () => {
  it('shows the code of a session whose .gitattributes says `* -diff`', async () => {
    const session = await w.session({
      files: { 'src/app.ts': CODE, '.gitattributes': '* -diff\n' },
      message: 'Hide the change',
    });
    // Plain git is fooled: that is the attack.
    expect(git(session.worktreePath, 'diff', 'main', '--', 'src/app.ts')).toContain(
      'Binary files a/src/app.ts and b/src/app.ts differ',
    );

    expectCode(await openDiff(session.id));
    await expectCodeEverywhere(session.worktreePath, session.branch);
    await w.controller.sessions.refreshDiff(session.id);
    expect(await w.get(session.id)).toMatchObject({ addedLines: 3, deletedLines: 1 });
  });

  it('shows the code when the shared info/attributes says `* -diff`', async () => {
    const session = await w.session({ files: { 'src/app.ts': CODE }, message: 'Change the app' });
    const common = git(
      session.worktreePath,
      'rev-parse',
      '--path-format=absolute',
      '--git-common-dir',
    );
    mkdirSync(join(common, 'info'), { recursive: true });
    writeFileSync(join(common, 'info', 'attributes'), '* -diff\n');
    expect(git(w.repo, 'diff', 'main', session.branch, '--', 'src/app.ts')).toContain(
      'Binary files',
    );

    expectCode(await openDiff(session.id));
    await expectCodeEverywhere(session.worktreePath, session.branch);
  });

  it('runs no textconv or diff driver an attribute names, and `binary` on text changes nothing', async () => {
    // A driver the person configured for their own files, named by the agent for its code.
    git(w.repo, 'config', 'diff.hide.textconv', 'echo nothing to see in');
    const session = await w.session({
      files: { 'src/app.ts': CODE, '.gitattributes': '*.ts diff=hide\n' },
      message: 'Change the app',
    });
    expect(git(session.worktreePath, 'diff', 'main', '--', 'src/app.ts')).toContain(
      'nothing to see',
    );
    // Uncommitted, in the worktree only: `binary` on top.
    writeFiles(session.worktreePath, {
      'lib/.gitattributes': '* binary\n',
      'lib/util.ts': 'run();\n',
    });

    const view = await openDiff(session.id);

    expectCode(view);
    expect(view.files.find((f) => f.path === 'lib/util.ts')).toMatchObject({
      binary: false,
      added: 1,
    });
    await expectCodeEverywhere(session.worktreePath, session.branch);
  });
});

describe('binary files, by their content', () => {
  it('are shown with their sizes and counted in the size class', async () => {
    const old = Buffer.alloc(1_000, 0x41);
    old[10] = 0;
    w.commitOnMain({ 'assets/blob.bin': old }, 'Add a blob');
    const fresh = Buffer.alloc(3_000, 0x42);
    fresh[100] = 0;
    const tool = Buffer.concat([Buffer.from('#!/bin/sh\n'), Buffer.alloc(4_000)]);
    const session = await w.session({
      // `diff` set would make git print the bytes as text lines; content decides.
      files: {
        'assets/blob.bin': fresh,
        'bin/tool': tool,
        '.gitattributes': 'bin/* diff\n',
        'notes.txt': 'one line\n',
      },
      message: 'Add a tool',
    });

    const view = await openDiff(session.id);

    expect(view.files.find((f) => f.path === 'bin/tool')).toMatchObject({
      binary: true,
      added: 0,
      summarized: `Binary file added: 0 → ${tool.length} bytes.`,
    });
    expect(view.files.find((f) => f.path === 'assets/blob.bin')).toMatchObject({
      binary: true,
      summarized: 'Binary file modified: 1000 → 3000 bytes.',
    });
    const diff = await w.infra.git.diffAgainstBase(session.worktreePath, 'main');
    expect(diff.patch).toContain(
      `Binary files /dev/null and b/bin/tool differ (0 → ${tool.length} bytes)`,
    );
    expect(diff.patch).toContain(
      'Binary files a/assets/blob.bin and b/assets/blob.bin differ (1000 → 3000 bytes)',
    );
    expect(diff.files.find((f) => f.path === 'bin/tool')).toMatchObject({
      oldSize: 0,
      newSize: tool.length,
    });

    // Text: 2 lines (.gitattributes, notes.txt). Binary at 64 bytes a line:
    // bin/tool 4010 bytes → 63; blob.bin 1000 → 16 deleted, 3000 → 47 added.
    // 2 + 63 + 16 + 47 = 128 lines: L. Counting text lines only would say XS.
    await w.controller.sessions.refreshDiff(session.id);
    expect(await w.get(session.id)).toMatchObject({ addedLines: 2, deletedLines: 0, size: 'L' });
  });
});

describe('file names with bidi controls and tabs', () => {
  it('are shown escaped in the file list and the rendered diff view', async () => {
    const session = await w.session({
      files: { 'a\u202Eb.txt': 'reversed\n', 'tab\tname.txt': 'tabbed\n' },
      message: 'Odd names',
    });

    const view = await openDiff(session.id);

    const paths = view.files.map((f) => f.path);
    expect(paths).toContain('a\\u202Eb.txt');
    expect(paths).toContain('tab\\tname.txt');
    // Each name still finds its own lines in the patch.
    expect(rowTexts(view, 'a\\u202Eb.txt')).toContain('reversed');
    expect(rowTexts(view, 'tab\\tname.txt')).toContain('tabbed');
    const frame = renderFrame(w.app.state);
    expect(frame.text).toContain('a\\u202Eb.txt');
    expect(frame.text).toContain('tab\\tname.txt');
    expect(frame.text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\t]/);
  });
});
