// Whether a change to the main checkout's index is the person's own git work
// there (they keep working while an agent runs) or something else. The agent
// cannot write the main checkout's files, so an entry staged as the file on
// disk is, or as the checked-out commit holds it, is what `git add`, `git
// reset` or `git checkout` leave; an entry the disk and the commit both lack
// (a commit of the agent's read into the index), or one hidden with
// skip-worktree or assume-unchanged, is not.
import { lstat, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from './run.js';

interface Entry {
  /** `H` for a plain entry; `S` skip-worktree; lowercase assume-unchanged (ls-files -v). */
  readonly tag: string;
  readonly oid: string;
  readonly stage: string;
}

/** The entries of an index file, by path (its stat data left out). */
async function entriesOf(mainCheckout: string, bytes: Buffer): Promise<Map<string, Entry>> {
  const tmp = await mkdtemp(join(tmpdir(), 'grove-guard-'));
  try {
    const file = join(tmp, 'index');
    await writeFile(file, bytes);
    const out = (
      await git(['ls-files', '--stage', '-v', '-z'], {
        cwd: mainCheckout,
        env: { GIT_INDEX_FILE: file, GIT_OPTIONAL_LOCKS: '0' },
      })
    ).stdout;
    const entries = new Map<string, Entry>();
    for (const record of out.split('\0')) {
      const tab = record.indexOf('\t');
      if (tab < 0) continue;
      const [tag = '', , oid = '', stage = ''] = record.slice(0, tab).split(' ');
      entries.set(`${record.slice(tab + 1)}\0${stage}`, { tag, oid, stage });
    }
    return entries;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

const pathOf = (key: string): string => key.slice(0, key.lastIndexOf('\0'));

async function isFile(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isFile();
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** The blob ids of files on disk, as `git add` would store them (no filter programs run). */
async function diskBlobs(
  mainCheckout: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const files: string[] = [];
  for (const path of paths) if (await isFile(join(mainCheckout, path))) files.push(path);
  if (files.length === 0) return new Map();
  const out = (
    await git(['hash-object', '--no-filters', '--stdin-paths'], {
      cwd: mainCheckout,
      input: `${files.join('\n')}\n`,
    })
  ).stdout.split('\n');
  return new Map(files.map((path, i) => [path, out[i] ?? '']));
}

/** The blob ids `commit` holds, by path. */
async function commitBlobs(
  mainCheckout: string,
  commit: string | null,
): Promise<Map<string, string>> {
  if (commit === null) return new Map();
  const out = (await git(['ls-tree', '-r', '-z', '--full-tree', commit], { cwd: mainCheckout }))
    .stdout;
  const blobs = new Map<string, string>();
  for (const record of out.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab >= 0) blobs.set(record.slice(tab + 1), record.slice(0, tab).split(' ')[2] ?? '');
  }
  return blobs;
}

/**
 * Whether the branch checked out in the main checkout moved from `before` to
 * `after` the way the person's own commit, pull, rebase or reset there moves
 * it: every path that differs between the two commits holds on disk what
 * `after` holds (or is absent from both). An agent cannot write the main
 * checkout's files, so a commit of its own there does not match them.
 */
export async function movedInCheckout(
  mainCheckout: string,
  before: string,
  after: string,
): Promise<boolean> {
  if (before.includes(' -> ') || after.includes(' -> ')) return false;
  const paths = (
    await git(['diff-tree', '-r', '-z', '--no-renames', '--name-only', before, after], {
      cwd: mainCheckout,
    })
  ).stdout
    .split('\0')
    .filter((p) => p !== '');
  if (paths.length === 0) return true;
  const [disk, committed] = await Promise.all([
    diskBlobs(mainCheckout, paths),
    commitBlobs(mainCheckout, after),
  ]);
  return paths.every((path) => disk.get(path) === committed.get(path));
}

/**
 * How the main checkout's index `after` differs from `before`: `same` (only
 * file stats, as a `git status` refresh leaves them), `person` (every entry
 * that differs is what the person's own git leaves: the file on disk, or
 * `head`'s blob), or `foreign`. `head` is the commit the checkout is on once
 * the guard has put refs back (null: none yet).
 */
export async function compareIndexes(
  mainCheckout: string,
  before: Buffer,
  after: Buffer,
  head: string | null,
): Promise<'same' | 'person' | 'foreign'> {
  const [was, now] = await Promise.all([
    entriesOf(mainCheckout, before),
    entriesOf(mainCheckout, after),
  ]);
  const changed = [...new Set([...was.keys(), ...now.keys()])].filter((key) => {
    const a = was.get(key);
    const b = now.get(key);
    return a?.tag !== b?.tag || a?.oid !== b?.oid;
  });
  if (changed.length === 0) return 'same';
  let committed: Map<string, string> | null = null;
  const staged: { path: string; oid: string }[] = [];
  for (const key of changed) {
    const entry = now.get(key);
    const path = pathOf(key);
    if (entry === undefined) {
      // Taken out of the index: `git rm` (the file is gone) or unstaging a file the commit lacks.
      if (!(await exists(join(mainCheckout, path)))) continue;
      committed ??= await commitBlobs(mainCheckout, head);
      if (!committed.has(path)) continue;
      return 'foreign';
    }
    if (entry.tag !== 'H' || entry.stage !== '0') return 'foreign';
    staged.push({ path, oid: entry.oid });
  }
  const disk = await diskBlobs(
    mainCheckout,
    staged.map((s) => s.path),
  );
  for (const { path, oid } of staged) {
    if (disk.get(path) === oid) continue;
    committed ??= await commitBlobs(mainCheckout, head);
    if (committed.get(path) !== oid) return 'foreign';
  }
  return 'person';
}
