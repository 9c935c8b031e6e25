// The shared git folder's state an agent could change but must not: every
// ref but its own branch (and remote-tracking refs, which Grove's own fetch
// moves at any time), the packed-refs entries behind them, the main
// checkout's index and HEAD, and `info/` (attributes, exclude, …). Grove
// records it before an agent runs, compares after, and puts back what changed.
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  lstat,
  mkdir,
  readFile,
  readdir,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { gitCommonDirOf, gitDirOf } from './git-dir.js';
import { compareIndexes, movedInCheckout } from './guard-checkout.js';
import { git } from './run.js';

/** A file's bytes and the stat fields that say whether it was rewritten. */
interface FileCopy {
  readonly bytes: Buffer;
  readonly stamp: string;
}

export interface GuardSnapshot {
  readonly mainCheckout: string;
  readonly commonDir: string;
  /** The main checkout's own git folder (its index and HEAD). */
  readonly gitDir: string;
  /** The branch left out (the session's own), as a full ref name; null: none. */
  readonly ownRef: string | null;
  /** Ref name → `objectname` (` -> target` for a symbolic ref). */
  readonly refs: ReadonlyMap<string, string>;
  readonly packedRefs: FileCopy | null;
  readonly index: FileCopy | null;
  readonly head: FileCopy | null;
  /** `info/` files by path under it: their bytes (`symlink:` and the target for a link). */
  readonly info: ReadonlyMap<string, Buffer>;
}

export type GuardChange =
  /** A ref moved (`before` and `after`), was deleted (`after` null) or made (`before` null). */
  | {
      readonly kind: 'ref';
      readonly ref: string;
      readonly before: string | null;
      readonly after: string | null;
    }
  /** The packed-refs entry of a ref whose loose file hides it (it shows once the loose ref goes). */
  | { readonly kind: 'packed'; readonly ref: string }
  /** The main checkout's index holds other entries (a refresh of file stats is no change). */
  | { readonly kind: 'index' }
  | { readonly kind: 'head'; readonly before: string; readonly after: string }
  | {
      readonly kind: 'info';
      readonly file: string;
      readonly what: 'changed' | 'added' | 'deleted';
    };

/** What putting a change back did: done, or why not. */
export interface GuardRestore {
  readonly change: GuardChange;
  readonly error: string | null;
}

const REF_FORMAT = '%(objectname) %(refname) %(symref)';
/** `info/` files larger than this are compared by size and hash only and cannot be put back. */
const MAX_INFO_FILE = 4 * 1024 * 1024;

/** Left out: the agent's own branch, remote-tracking refs (Grove's fetch moves them), the person's stash list. */
function guarded(ref: string, ownRef: string | null): boolean {
  return ref !== ownRef && !ref.startsWith('refs/remotes/') && ref !== 'refs/stash';
}

async function listRefs(mainCheckout: string, ownRef: string | null): Promise<Map<string, string>> {
  const out = (await git(['for-each-ref', `--format=${REF_FORMAT}`], { cwd: mainCheckout })).stdout;
  const refs = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [oid, ref, symref] = line.split(' ');
    if (!oid || !ref || !guarded(ref, ownRef)) continue;
    refs.set(ref, symref ? `${oid} -> ${symref}` : oid);
  }
  return refs;
}

function stampOf(stats: Stats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

async function copyOf(path: string, previous?: FileCopy | null): Promise<FileCopy | null> {
  let stats: Stats;
  try {
    stats = await lstat(path);
  } catch {
    return null;
  }
  const stamp = stampOf(stats);
  // Unchanged stats: the same file (a writer always leaves a new ctime).
  if (previous && previous.stamp === stamp) return previous;
  const bytes = stats.isSymbolicLink()
    ? Buffer.from(`symlink:${await readlink(path)}`)
    : await readFile(path);
  return { bytes, stamp };
}

async function readInfo(commonDir: string): Promise<Map<string, Buffer>> {
  const dir = join(commonDir, 'info');
  const files = new Map<string, Buffer>();
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) continue;
    const path = join(entry.parentPath, entry.name);
    const name = relative(dir, path);
    if (entry.isSymbolicLink()) {
      files.set(name, Buffer.from(`symlink:${await readlink(path)}`));
      continue;
    }
    const size = (await lstat(path)).size;
    files.set(
      name,
      size > MAX_INFO_FILE
        ? Buffer.from(
            `large:${size}:${createHash('sha1')
              .update(await readFile(path))
              .digest('hex')}`,
          )
        : await readFile(path),
    );
  }
  return files;
}

/** The ref blocks of packed-refs (a ref line and its `^peeled` line), by ref name. */
function packedEntries(copy: FileCopy | null): Map<string, string> {
  const entries = new Map<string, string>();
  if (!copy) return entries;
  let last: string | null = null;
  for (const line of copy.bytes.toString('utf8').split('\n')) {
    if (line.startsWith('^') && last) entries.set(last, `${entries.get(last) ?? ''}\n${line}`);
    else if (line !== '' && !line.startsWith('#')) {
      last = line.slice(line.indexOf(' ') + 1);
      entries.set(last, line);
    }
  }
  return entries;
}

/**
 * Records what an agent about to run must leave as it is (see the file
 * comment): one `for-each-ref` and a few file reads.
 */
export async function guardSnapshot(
  mainCheckout: string,
  ownBranch: string | null,
): Promise<GuardSnapshot> {
  const [gitDir, commonDir] = await Promise.all([
    gitDirOf(mainCheckout),
    gitCommonDirOf(mainCheckout),
  ]);
  const ownRef = ownBranch === null ? null : `refs/heads/${ownBranch}`;
  const [refs, packedRefs, index, head, info] = await Promise.all([
    listRefs(mainCheckout, ownRef),
    copyOf(join(commonDir, 'packed-refs')),
    copyOf(join(gitDir, 'index')),
    copyOf(join(gitDir, 'HEAD')),
    readInfo(commonDir),
  ]);
  return { mainCheckout, commonDir, gitDir, ownRef, refs, packedRefs, index, head, info };
}

const headText = (copy: FileCopy | null): string => copy?.bytes.toString('utf8').trim() ?? '';

/** The commit a HEAD file's text names once the refs in `changes` are put back (null: unborn). */
function commitOf(
  text: string,
  snapshot: GuardSnapshot,
  refs: ReadonlyMap<string, string>,
  changes: readonly GuardChange[],
): string | null {
  const ref = /^ref: (\S+)$/.exec(text)?.[1];
  if (ref === undefined) return /^[0-9a-f]{40,64}$/.test(text) ? text : null;
  const putBack = changes.some((c) => c.kind === 'ref' && c.ref === ref);
  return (putBack ? snapshot.refs.get(ref) : refs.get(ref))?.split(' -> ')[0] ?? null;
}

/** What differs from `snapshot` now, in the order it is best put back. */
export async function guardCheck(snapshot: GuardSnapshot): Promise<GuardChange[]> {
  const { mainCheckout, commonDir, gitDir, ownRef } = snapshot;
  const [refs, packedRefs, index, head, info] = await Promise.all([
    listRefs(mainCheckout, ownRef),
    copyOf(join(commonDir, 'packed-refs'), snapshot.packedRefs),
    copyOf(join(gitDir, 'index'), snapshot.index),
    copyOf(join(gitDir, 'HEAD'), snapshot.head),
    readInfo(commonDir),
  ]);
  const changes: GuardChange[] = [];
  // The branch the main checkout is on moves with the person's own commit, pull or reset there.
  const checkedOut = /^ref: (refs\/heads\/\S+)$/.exec(headText(head))?.[1];
  for (const ref of new Set([...snapshot.refs.keys(), ...refs.keys()])) {
    const before = snapshot.refs.get(ref) ?? null;
    const after = refs.get(ref) ?? null;
    if (before === after) continue;
    if (
      ref === checkedOut &&
      before !== null &&
      after !== null &&
      (await movedInCheckout(mainCheckout, before, after))
    )
      continue;
    changes.push({ kind: 'ref', ref, before, after });
  }
  if (packedRefs !== snapshot.packedRefs) {
    const was = packedEntries(snapshot.packedRefs);
    const now = packedEntries(packedRefs);
    for (const ref of new Set([...was.keys(), ...now.keys()])) {
      // Shown through a loose ref that did not change: the hidden entry is the change.
      if (was.get(ref) === now.get(ref) || !guarded(ref, ownRef)) continue;
      if (changes.some((c) => c.kind === 'ref' && c.ref === ref)) continue;
      if (refs.has(ref) || snapshot.refs.has(ref)) changes.push({ kind: 'packed', ref });
    }
  }
  // The main checkout's HEAD on another branch that was there before (and, if it moved, moved
  // with the files on disk): the person's checkout.
  let headAfter = headText(snapshot.head);
  if (headText(head) !== headAfter) {
    const branch = /^ref: (refs\/heads\/\S+)$/.exec(headText(head))?.[1];
    const putBack = changes.some((c) => c.kind === 'ref' && c.ref === branch);
    if (branch && snapshot.refs.has(branch) && refs.has(branch) && !putBack)
      headAfter = headText(head);
    else
      changes.push({
        kind: 'head',
        before: headText(snapshot.head) || '(none)',
        after: headText(head) || '(none)',
      });
  }
  if (index !== snapshot.index) {
    const verdict =
      index === null || snapshot.index === null
        ? 'foreign'
        : index.bytes.equals(snapshot.index.bytes)
          ? 'same'
          : await compareIndexes(
              mainCheckout,
              snapshot.index.bytes,
              index.bytes,
              commitOf(headAfter, snapshot, refs, changes),
            );
    if (verdict === 'foreign') changes.push({ kind: 'index' });
  }
  for (const file of new Set([...snapshot.info.keys(), ...info.keys()])) {
    const before = snapshot.info.get(file);
    const after = info.get(file);
    if (before && after && before.equals(after)) continue;
    changes.push({
      kind: 'info',
      file,
      what: !before ? 'added' : !after ? 'deleted' : 'changed',
    });
  }
  return changes;
}

/** Writes `bytes` to `path` the way git does: through `path.lock`, renamed over it. */
async function putFile(path: string, bytes: Buffer): Promise<void> {
  const lock = `${path}.lock`;
  await writeFile(lock, bytes, { flag: 'wx' });
  try {
    await rename(lock, path);
  } catch (error) {
    await rm(lock, { force: true });
    throw error;
  }
}

/** A recorded file as it was: its bytes, or the link it was. */
async function putBack(path: string, bytes: Buffer | undefined): Promise<void> {
  const text = bytes?.toString('utf8') ?? '';
  if (bytes && text.startsWith('large:'))
    throw new Error('it is too large for Grove to keep a copy');
  await rm(path, { recursive: true, force: true });
  if (!bytes) return;
  if (text.startsWith('symlink:')) {
    await symlink(text.slice('symlink:'.length), path);
    return;
  }
  await mkdir(dirname(path), { recursive: true });
  await putFile(path, bytes);
}

async function restoreRef(
  snapshot: GuardSnapshot,
  ref: string,
  before: string | null,
  after: string | null,
): Promise<void> {
  const cwd = snapshot.mainCheckout;
  const [oldValue = '', symref] = (before ?? '').split(' -> ');
  const [current = ''] = (after ?? '').split(' -> ');
  const message = ['-m', 'grove: put back after an agent changed it'];
  if (before === null) {
    await git(['update-ref', ...message, '--no-deref', '-d', ref, current], { cwd });
  } else if (symref) {
    await git(['symbolic-ref', ...message, ref, symref], { cwd });
  } else {
    const expected = after === null ? '0'.repeat(oldValue.length) : current;
    await git(['update-ref', ...message, '--no-deref', ref, oldValue, expected], { cwd });
  }
}

/** Puts the packed-refs entry of `ref` back as recorded, keeping every other entry as it is now. */
async function restorePacked(snapshot: GuardSnapshot, ref: string): Promise<void> {
  const path = join(snapshot.commonDir, 'packed-refs');
  const now = packedEntries(await copyOf(path));
  const was = packedEntries(snapshot.packedRefs).get(ref);
  if (was === undefined) now.delete(ref);
  else now.set(ref, was);
  const header = (snapshot.packedRefs?.bytes.toString('utf8').split('\n')[0] ?? '').startsWith('#')
    ? `${snapshot.packedRefs?.bytes.toString('utf8').split('\n')[0] ?? ''}\n`
    : '';
  const body = [...now.keys()]
    .sort()
    .map((name) => `${now.get(name) ?? ''}\n`)
    .join('');
  await putFile(path, Buffer.from(header + body));
}

/**
 * Puts back every change `guardCheck` found: refs with their recorded value
 * (checked against the value seen, so a later move is not overwritten), refs
 * made since deleted, and the index, HEAD and `info/` files rewritten from
 * their recorded bytes.
 */
export async function guardRestore(
  snapshot: GuardSnapshot,
  changes: readonly GuardChange[],
): Promise<GuardRestore[]> {
  const results: GuardRestore[] = [];
  for (const change of changes) {
    try {
      switch (change.kind) {
        case 'ref':
          await restoreRef(snapshot, change.ref, change.before, change.after);
          break;
        case 'packed':
          await restorePacked(snapshot, change.ref);
          break;
        case 'index':
          if (!snapshot.index) throw new Error('there was no index before');
          await putFile(join(snapshot.gitDir, 'index'), snapshot.index.bytes);
          break;
        case 'head':
          if (!snapshot.head) throw new Error('there was no HEAD before');
          await putFile(join(snapshot.gitDir, 'HEAD'), snapshot.head.bytes);
          break;
        case 'info':
          await putBack(
            join(snapshot.commonDir, 'info', change.file),
            snapshot.info.get(change.file),
          );
          break;
      }
      results.push({ change, error: null });
    } catch (error) {
      results.push({ change, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return results;
}
