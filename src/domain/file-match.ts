/**
 * Fuzzy matching of a typed `@` query against a worktree's file list.
 *
 * Built for 100k paths on the key path: the list is lower-cased once when it
 * is loaded (`fileIndex`), each key scores only the paths that matched the
 * shorter query before it (typing narrows, so the candidates only shrink),
 * and only the best `limit` results are kept and sorted.
 */
export interface FileIndex {
  readonly paths: readonly string[];
  /** `paths`, lower-cased (same order). */
  readonly lower: readonly string[];
}

/** A match result, reusable as the start of the next, longer query. */
export interface FileMatch {
  readonly index: FileIndex;
  readonly query: string;
  /** Indices into `index.paths` of every path the query matches; null: every path (empty query). */
  readonly candidates: readonly number[] | null;
  /** The best matches, best first. */
  readonly items: readonly string[];
}

export function fileIndex(paths: readonly string[]): FileIndex {
  return { paths, lower: paths.map((path) => path.toLowerCase()) };
}

const SLASH = 47;

function isBoundary(code: number): boolean {
  // / _ - . and space start a word of a path.
  return code === SLASH || code === 95 || code === 45 || code === 46 || code === 32;
}

/** What a matched letter at `i` is worth: more after the previous one, at a word start, in the file name. */
function pointsAt(path: string, i: number, previous: number, base: number): number {
  return (
    1 +
    (i === previous + 1 ? 4 : 0) +
    (i === 0 || isBoundary(path.charCodeAt(i - 1)) ? 3 : 0) +
    (i >= base ? 1 : 0)
  );
}

/**
 * The score of `query` (lower-case) in `path` (lower-case), or -1 when the
 * query is not a subsequence of the path. Higher is better: consecutive
 * letters, letters at the start of a word, letters in the file name, the
 * query as a substring of the file name, and shorter paths win.
 */
export function scorePath(path: string, query: string): number {
  if (query === '') return 0;
  const base = path.lastIndexOf('/') + 1;
  // Greedy, leftmost: is it a subsequence at all, and how well does it read?
  let qi = 0;
  let score = 0;
  let previous = -2;
  for (let i = 0; i < path.length && qi < query.length; i++) {
    if (path.charCodeAt(i) !== query.charCodeAt(qi)) continue;
    score += pointsAt(path, i, previous, base);
    previous = i;
    qi++;
  }
  if (qi < query.length) return -1;
  // The query as one piece (the last one: in the file name when it is there) may read better.
  const at = path.lastIndexOf(query);
  if (at >= 0) {
    let whole = 0;
    for (let i = at; i < at + query.length; i++)
      whole += pointsAt(path, i, i === at ? -2 : i - 1, base);
    whole += at === base ? 40 : at > base ? 20 : 10;
    score = Math.max(score, whole);
  }
  return score * 1000 - path.length;
}

/**
 * The best `limit` paths for `query`. When `previous` was computed on the
 * same index for a prefix of `query`, only its candidates are scanned.
 */
export function matchFiles(
  index: FileIndex,
  query: string,
  limit: number,
  previous?: FileMatch | null,
): FileMatch {
  const q = query.toLowerCase();
  if (q === '') return { index, query, candidates: null, items: index.paths.slice(0, limit) };
  const reuse =
    previous && previous.index === index && q.startsWith(previous.query.toLowerCase())
      ? previous.candidates
      : null;
  const candidates: number[] = [];
  // The best `limit` so far, best first (insertion into a short sorted array).
  const top: { at: number; score: number }[] = [];
  const consider = (at: number): void => {
    const score = scorePath(index.lower[at] ?? '', q);
    if (score < 0) return;
    candidates.push(at);
    if (top.length === limit && score <= (top[limit - 1]?.score ?? 0)) return;
    let slot = top.length;
    while (slot > 0 && (top[slot - 1]?.score ?? 0) < score) slot--;
    top.splice(slot, 0, { at, score });
    if (top.length > limit) top.pop();
  };
  if (reuse) for (const at of reuse) consider(at);
  else for (let at = 0; at < index.lower.length; at++) consider(at);
  return { index, query, candidates, items: top.map((entry) => index.paths[entry.at] ?? '') };
}
