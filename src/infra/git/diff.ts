import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareOrdinal } from '../../domain/ordinal.js';
import { sanitizePath, sanitizeText } from '../../domain/sanitize.js';
import { gitDirOf } from './git-dir.js';
import {
  objectStoreOf,
  withNeutralRepo,
  type NeutralRepo,
  type ObjectStore,
} from './neutral-repo.js';
import { git, gitOut } from './run.js';

/** A changed file, for display: `path` and `oldPath` are sanitized (never use them to address files). */
export interface DiffFile {
  readonly path: string;
  readonly oldPath?: string;
  readonly status: 'added' | 'modified' | 'deleted' | 'renamed';
  readonly added: number;
  readonly deleted: number;
  /** Binary by content (a NUL byte in the first 8,000 bytes), whatever attributes say. */
  readonly binary: boolean;
  /** A binary file's size in bytes before and after (0 for the side that does not exist). */
  readonly oldSize?: number;
  readonly newSize?: number;
}

export interface DiffStats {
  readonly files: readonly DiffFile[];
  readonly added: number;
  readonly deleted: number;
}

export interface Diff extends DiffStats {
  /**
   * The unified diff, sanitized for display: control characters in names and
   * lines are placeholders. Read with no attributes, so every file that is
   * text by content shows its lines; a binary file's line carries its sizes.
   */
  readonly patch: string;
}

/**
 * Runs `fn` with the tree of the worktree as a commit would take it (every
 * file, untracked too, added to a copy of its real index; the real index is
 * never touched) and the merge base with `baseBranch`.
 */
async function withWorktreeTree<T>(
  dir: string,
  baseBranch: string,
  fn: (store: ObjectStore, base: string, tree: string) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const gitDir = await gitDirOf(dir, signal);
  const tmp = await mkdtemp(join(tmpdir(), 'grove-index-'));
  const index = join(tmp, 'index');
  try {
    const real = join(gitDir, 'index');
    if (existsSync(real)) await copyFile(real, index);
    const env = { GIT_INDEX_FILE: index };
    const [store] = await Promise.all([
      objectStoreOf(dir, signal),
      git(['add', '-A'], { cwd: dir, env, signal }),
    ]);
    const [tree, base] = await Promise.all([
      gitOut(['write-tree'], { cwd: dir, env, signal }),
      gitOut(['merge-base', 'HEAD', baseBranch], { cwd: dir, signal }),
    ]);
    return await fn(store, base, tree);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Object ids of a file's two sides, and its status, from `--raw`. */
interface RawEntry {
  readonly status: DiffFile['status'];
  readonly oldPath?: string;
  readonly oldId: string;
  readonly newId: string;
}

const NO_OBJECT = /^0+$/;

/**
 * `--raw --numstat -z` output: the raw records (":mode mode id id STATUS",
 * then one path, or two for a rename or copy) come first, then the counts
 * ("added\tdeleted\tpath", or "added\tdeleted\t" then old and new path).
 * Binary files ("-\t-") carry their blob ids, for their sizes.
 */
function parseRawNumstat(out: string): { raw: RawEntry; path: string; numstat: string[] }[] {
  const parts = out.split('\0');
  const raw = new Map<string, RawEntry>();
  const files: { raw: RawEntry; path: string; numstat: string[] }[] = [];
  for (let i = 0; i < parts.length; i++) {
    const head = parts[i] ?? '';
    if (head === '') continue;
    if (head.startsWith(':')) {
      const [, , oldId = '', newId = '', code = ''] = head.slice(1).split(' ');
      if (code.startsWith('R') || code.startsWith('C')) {
        const oldPath = parts[i + 1] ?? '';
        raw.set(parts[i + 2] ?? '', { status: 'renamed', oldPath, oldId, newId });
        i += 2;
      } else {
        const status = code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified';
        raw.set(parts[i + 1] ?? '', { status, oldId, newId });
        i += 1;
      }
      continue;
    }
    // "added\tdeleted\tpath": the path is all after the second tab (a name may hold tabs).
    const second = head.indexOf('\t', head.indexOf('\t') + 1);
    const numstat = head.slice(0, Math.max(0, second)).split('\t');
    let path = second < 0 ? '' : head.slice(second + 1);
    if (path === '') {
      // A rename: the old and new path follow as fields of their own.
      path = parts[i + 2] ?? '';
      i += 2;
    }
    files.push({
      raw: raw.get(path) ?? { status: 'modified', oldId: '', newId: '' },
      path,
      numstat,
    });
  }
  return files;
}

/** Sizes in bytes of `ids` (blobs), from one `cat-file --batch-check`; the null id is 0. */
async function blobSizes(
  repo: NeutralRepo,
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const wanted = [...new Set(ids.filter((id) => id !== '' && !NO_OBJECT.test(id)))];
  for (const id of ids) if (NO_OBJECT.test(id)) sizes.set(id, 0);
  if (wanted.length === 0) return sizes;
  const out = await repo.run(
    ['cat-file', '--batch-check=%(objectname) %(objectsize)'],
    signal,
    `${wanted.join('\n')}\n`,
  );
  for (const line of out.stdout.split('\n')) {
    const [id = '', size = ''] = line.split(' ');
    if (/^\d+$/.test(size)) sizes.set(id, Number(size));
  }
  return sizes;
}

interface Measured extends DiffStats {
  /** Blob sizes of the binary files' sides, by object id. */
  readonly sizes: ReadonlyMap<string, number>;
}

/**
 * Counts per file from one `git diff --raw --numstat -z` (read here rather
 * than by simple-git's `diffSummary()`: it refuses `-z`, so names come
 * C-quoted and renames as `dir/{old => new}`, and its counts carry no
 * added/deleted status), and the sizes of the binary ones.
 */
async function stats(
  repo: NeutralRepo,
  from: string,
  to: string,
  signal?: AbortSignal,
): Promise<Measured> {
  const out = await repo.run(
    ['diff', '--raw', '--numstat', '-z', '-M', '--no-abbrev', ...NO_PROGRAMS, from, to],
    signal,
  );
  const parsed = parseRawNumstat(out.stdout);
  const binaryIds = parsed
    .filter((f) => f.numstat[0] === '-' && f.numstat[1] === '-')
    .flatMap((f) => [f.raw.oldId, f.raw.newId]);
  const sizes =
    binaryIds.length > 0 ? await blobSizes(repo, binaryIds, signal) : new Map<string, number>();
  const files = parsed.map(({ raw, path, numstat: [a = '0', d = '0'] }): DiffFile => {
    const binary = a === '-' && d === '-';
    return {
      path: sanitizePath(path),
      ...(raw.oldPath ? { oldPath: sanitizePath(raw.oldPath) } : {}),
      status: raw.status,
      added: binary ? 0 : Number(a),
      deleted: binary ? 0 : Number(d),
      binary,
      ...(binary ? { oldSize: sizes.get(raw.oldId) ?? 0, newSize: sizes.get(raw.newId) ?? 0 } : {}),
    };
  });
  files.sort((x, y) => compareOrdinal(x.path, y.path));
  return {
    files,
    added: files.reduce((s, f) => s + f.added, 0),
    deleted: files.reduce((s, f) => s + f.deleted, 0),
    sizes,
  };
}

/** No program named in config or attributes runs: no external diff, no textconv filter. */
const NO_PROGRAMS = ['--no-ext-diff', '--no-textconv'] as const;

export interface DiffOptions {
  /** Stops the git processes (a diff view closed while it loads). */
  readonly signal?: AbortSignal;
  /**
   * Takes the diff a turn's commit just measured (keepDiff) while the
   * worktree's HEAD, its index and the base branch are as the commit left
   * them: what follows the turn (its printed result, the focused review)
   * does not walk the worktree again. A diff view reads git afresh.
   */
  readonly kept?: boolean;
}

/** Diffs measured by a turn's commit, by worktree and base branch (keepDiff). */
const keptDiffs = new Map<
  string,
  { readonly stamp: string; readonly diff: Diff; readonly at: number }
>();
/** A kept diff serves what follows its turn, not a later look. */
const KEPT_FOR_MS = 60_000;
const MAX_KEPT = 64;

/**
 * What a kept diff depends on, without walking the worktree: HEAD, the base
 * branch's tip and the worktree's index file (any `git add`, commit or reset
 * there rewrites it). Null when git cannot tell.
 */
async function diffStamp(dir: string, baseBranch: string): Promise<string | null> {
  const out = await git(['rev-parse', '--absolute-git-dir', 'HEAD', baseBranch], {
    cwd: dir,
    okCodes: [128],
  });
  if (out.exitCode !== 0) return null;
  const [gitDir = '', head = '', base = ''] = out.stdout.trim().split('\n');
  const index = await stat(join(gitDir, 'index'), { bigint: true }).catch(() => null);
  if (!index) return null;
  return [head, base, index.ino, index.size, index.mtimeNs, index.ctimeNs].join(' ');
}

/**
 * Keeps the diff a turn's commit measured (stageAllAndDiff, then the
 * commit of exactly that), for `diffAgainstBase(…, { kept: true })`.
 */
export async function keepDiff(dir: string, baseBranch: string, diff: Diff): Promise<void> {
  const stamp = await diffStamp(dir, baseBranch);
  const key = `${dir}\0${baseBranch}`;
  keptDiffs.delete(key);
  if (stamp === null) return;
  const { files, added, deleted, patch } = diff;
  keptDiffs.set(key, { stamp, diff: { files, added, deleted, patch }, at: Date.now() });
  for (const old of keptDiffs.keys()) {
    if (keptDiffs.size <= MAX_KEPT) break;
    keptDiffs.delete(old);
  }
}

async function keptDiff(dir: string, baseBranch: string): Promise<Diff | null> {
  const key = `${dir}\0${baseBranch}`;
  const kept = keptDiffs.get(key);
  if (!kept) return null;
  if (Date.now() - kept.at > KEPT_FOR_MS) {
    keptDiffs.delete(key);
    return null;
  }
  const stamp = await diffStamp(dir, baseBranch).catch(() => null);
  if (stamp === kept.stamp) return kept.diff;
  keptDiffs.delete(key);
  return null;
}

/**
 * git's "Binary files a/x and b/x differ" line with the file's sizes added:
 * " (13 → 21 bytes)". The `index` line before it names both blobs in full
 * (`--full-index`).
 */
function withBinarySizes(patch: string, sizes: ReadonlyMap<string, number>): string {
  if (sizes.size === 0) return patch;
  return patch.replace(
    /^index ([0-9a-f]+)\.\.([0-9a-f]+)([^\n]*)\n(Binary files [^\n]* differ)$/gm,
    (line, oldId: string, newId: string, mode: string, binary: string) => {
      const before = sizes.get(oldId);
      const after = sizes.get(newId);
      if (before === undefined || after === undefined) return line;
      return `index ${oldId}..${newId}${mode}\n${binary} (${before} → ${after} bytes)`;
    },
  );
}

/** The diff between two commits or trees, read with no attributes (neutral-repo.ts). */
async function fullDiff(
  store: ObjectStore,
  from: string,
  to: string,
  signal?: AbortSignal,
): Promise<Diff> {
  return withNeutralRepo(store, async (repo) => {
    const [summary, patch] = await Promise.all([
      stats(repo, from, to, signal),
      repo.run(['diff', '-M', '--no-color', '--full-index', ...NO_PROGRAMS, from, to], signal),
    ]);
    const { sizes, ...counts } = summary;
    return { ...counts, patch: sanitizeText(withBinarySizes(patch.stdout, sizes)) };
  });
}

/** The session's changes: merge-base with the base branch → the working tree, untracked files included. */
export async function diffAgainstBase(
  dir: string,
  baseBranch: string,
  options: DiffOptions = {},
): Promise<Diff> {
  if (options.kept) {
    const kept = await keptDiff(dir, baseBranch);
    if (kept) return kept;
  }
  return withWorktreeTree(
    dir,
    baseBranch,
    (store, base, tree) => fullDiff(store, base, tree, options.signal),
    options.signal,
  );
}

/**
 * Stages everything in the worktree's own index (`git add -A`, as a commit
 * is about to) and returns the staged diff against the merge base: the same
 * diff as diffAgainstBase, without copying the index and adding every file a
 * second time into the copy (slow on a large repository: docs/performance.md).
 * This `add -A` is the one walk of the worktree a turn makes: the commit
 * after it takes what it staged (commitAll's `staged`).
 */
export async function stageAllAndDiff(
  dir: string,
  baseBranch: string,
  options: DiffOptions = {},
): Promise<StagedDiff> {
  const { signal } = options;
  const [store] = await Promise.all([
    objectStoreOf(dir, signal),
    git(['add', '-A'], { cwd: dir, signal }),
  ]);
  const [tree, base, head] = await Promise.all([
    gitOut(['write-tree'], { cwd: dir, signal }),
    gitOut(['merge-base', 'HEAD', baseBranch], { cwd: dir, signal }),
    git(['rev-parse', '-q', '--verify', 'HEAD^{tree}'], { cwd: dir, signal, okCodes: [1, 128] }),
  ]);
  const headTree = head.exitCode === 0 ? head.stdout.trim() : null;
  return { ...(await fullDiff(store, base, tree, signal)), tree, changed: tree !== headTree };
}

/** What stageAllAndDiff staged: the diff, the index's tree, and whether it differs from HEAD's. */
export interface StagedDiff extends Diff {
  readonly tree: string;
  /** The staged tree is not HEAD's: there is something to commit. */
  readonly changed: boolean;
}

/**
 * A branch's changes against its merge base with `baseBranch`, read from
 * any checkout of the repository: the diff of a session whose worktree is
 * gone but whose branch was kept (a canceled session).
 */
export async function diffOfBranch(
  repoDir: string,
  branch: string,
  baseBranch: string,
  options: DiffOptions = {},
): Promise<Diff> {
  const { signal } = options;
  const [store, base, head] = await Promise.all([
    objectStoreOf(repoDir, signal),
    gitOut(['merge-base', baseBranch, branch], { cwd: repoDir, signal }),
    gitOut(['rev-parse', '--verify', '--end-of-options', `${branch}^{commit}`], {
      cwd: repoDir,
      signal,
    }),
  ]);
  return fullDiff(store, base, head, signal);
}

/** Counts only (fast): files and +/- lines of the session's changes, binary files with their sizes. */
export async function diffStats(dir: string, baseBranch: string): Promise<DiffStats> {
  return withWorktreeTree(dir, baseBranch, (store, base, tree) =>
    withNeutralRepo(store, async (repo) => {
      const { sizes: _sizes, ...counts } = await stats(repo, base, tree);
      return counts;
    }),
  );
}
