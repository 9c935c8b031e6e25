import { lutimes, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { git, gitOut } from './run.js';

// A fresh checkout writes its files and its index within the same second.
// git compares file times in whole seconds (this machine's git, as most,
// is built without nanosecond times), so it cannot trust an entry whose file
// time is not older than the index ("racy"): until an index is written in a
// later second, every git command there hashes each such file again (on a
// large repository, several times in a session's first turn). A checkout is
// settled before anything else writes in the worktree (hooks, the agent), in
// one of two ways, whichever costs less now:
//   back     the racy files are dated a second back and the index refreshed:
//            git hashes those files once, and any later change, in this
//            second or after, is newer than what the index holds;
//   forward  the index is dated to the next second, and Grove waits for that
//            second to begin before anything may write there: no file is
//            touched or hashed, and any later change is in a second the
//            index's entries are older than.
// Either way git trusts the whole index at once and misses no change made
// after. Symbolic links get their own time (`lutimes`), never their target's.

export type SettleWay = 'back' | 'forward';

/** What dating a racy file back costs (the `lutimes`, then the refresh's hash of it), ms. */
const BACK_MS_PER_RACY = 0.025;
/** The refresh's stat of every other entry, ms. */
const BACK_MS_PER_ENTRY = 0.002;
/** File times come from a coarse clock, a tick behind the one Date.now reads. */
const CLOCK_MARGIN_MS = 25;

/** The cheaper way for `racy` of `entries` entries, with `msToNextSecond` left before the index's next second. */
export function settleWay(racy: number, entries: number, msToNextSecond: number): SettleWay {
  return msToNextSecond <= racy * BACK_MS_PER_RACY + entries * BACK_MS_PER_ENTRY
    ? 'forward'
    : 'back';
}

/** The paths of `git ls-files -z --debug` whose file time (whole seconds) is `second` or later, and the number of entries. */
export function racyEntries(
  listing: string,
  second: number,
): { racy: string[]; entries: number; latest: number } {
  const racy: string[] = [];
  let entries = 0;
  let latest = 0;
  // Each entry: its path, NUL, then five "  key: value" lines; the next path follows at once.
  const chunks = listing.split('\0');
  let path = chunks[0] ?? '';
  for (let i = 1; i < chunks.length; i++) {
    const chunk = chunks[i] ?? '';
    let end = 0;
    for (let line = 0; line < 5; line++) {
      const next = chunk.indexOf('\n', end);
      end = next === -1 ? chunk.length : next + 1;
    }
    const mtime = /\n\s*mtime: (\d+):/.exec(`\n${chunk.slice(0, end)}`);
    entries++;
    const time = Number(mtime?.[1] ?? 0);
    latest = Math.max(latest, time);
    if (time >= second) racy.push(path);
    path = chunk.slice(end);
  }
  return { racy, entries, latest };
}

/** Settles a checkout Grove has just made at `path` (see above); `way` forces one (tests). */
export async function settleCheckout(path: string, way?: SettleWay): Promise<SettleWay | null> {
  const [indexPath, listing] = await Promise.all([
    gitOut(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd: path }),
    // Not trimmed: a path may begin or end with a space.
    git(['ls-files', '-z', '--debug'], { cwd: path }).then((r) => r.stdout),
  ]);
  const index = indexPath.trim();
  const second = Math.floor((await stat(index)).mtimeMs / 1000);
  const { racy, entries, latest } = racyEntries(listing, second);
  if (racy.length === 0) return null;
  const ahead = Math.max(second, latest) + 1;
  const next = ahead * 1000 + CLOCK_MARGIN_MS;
  // A file time ahead of the clock (a clock set back) is not waited for.
  const chosen =
    next - Date.now() > 1000 + CLOCK_MARGIN_MS
      ? 'back'
      : (way ?? settleWay(racy.length, entries, next - Date.now()));
  if (chosen === 'forward') {
    const future = new Date(ahead * 1000);
    await utimes(index, future, future);
    const left = next - Date.now();
    if (left > 0) await new Promise((done) => setTimeout(done, left));
    return chosen;
  }
  const earlier = new Date((Math.min(second, Math.floor(Date.now() / 1000)) - 1) * 1000);
  // A few hundred at a time: all of them at once would queue as many promises for nothing.
  for (let at = 0; at < racy.length; at += 256)
    await Promise.all(
      racy
        .slice(at, at + 256)
        .map((file) => lutimes(join(path, file), earlier, earlier).catch(() => {})),
    );
  await git(['update-index', '-q', '--refresh'], { cwd: path, okCodes: [1] });
  return chosen;
}
