import { shortId, type Session } from './session.js';

/**
 * Overlap between live sessions: two sessions that changed the same files,
 * and whether their branches would conflict with each other once both land.
 * The git probes live in the app; this is the bookkeeping, kept cheap for
 * many sessions: pairs are found through an index of paths, so only
 * sessions that share a path are ever compared.
 */

/** What one session shares with another. */
export interface SessionOverlap {
  /** The other session. */
  readonly sessionId: string;
  /** Paths both sessions changed since they left their base. */
  readonly files: readonly string[];
  /** Paths whose changes conflict when both branches are merged (empty: they merge cleanly). */
  readonly conflicts: readonly string[];
}

/** Overlaps per session id (sessions without any are absent). */
export type OverlapMap = Readonly<Record<string, readonly SessionOverlap[]>>;

/** Two sessions that changed at least one path in common. */
export interface SharedPaths {
  readonly a: string;
  readonly b: string;
  readonly files: readonly string[];
}

/**
 * Every pair of sessions whose changed-path sets intersect, with the paths
 * they share. Works through a path → sessions index, so its cost follows
 * the paths sessions really share, not the square of the session count.
 * Pairs come with `a < b`, sorted; files sorted. Two variants of one
 * best-of-N group (`groupOf`: session id → group id) are never a pair: they
 * run the same task on purpose, and at most one of them lands.
 */
export function sharedPaths(
  changed: ReadonlyMap<string, readonly string[]>,
  groupOf: ReadonlyMap<string, string> = new Map(),
): SharedPaths[] {
  const byPath = new Map<string, string[]>();
  for (const [sessionId, paths] of changed) {
    for (const path of new Set(paths)) {
      const list = byPath.get(path);
      if (list) list.push(sessionId);
      else byPath.set(path, [sessionId]);
    }
  }
  const pairs = new Map<string, { a: string; b: string; files: string[] }>();
  for (const [path, sessions] of byPath) {
    if (sessions.length < 2) continue;
    const sorted = [...sessions].sort();
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) {
        const a = sorted[i] as string;
        const b = sorted[j] as string;
        const group = groupOf.get(a);
        if (group !== undefined && group === groupOf.get(b)) continue;
        const key = `${a}\0${b}`;
        const pair = pairs.get(key);
        if (pair) pair.files.push(path);
        else pairs.set(key, { a, b, files: [path] });
      }
    }
  }
  return [...pairs.values()]
    .map((p) => ({ a: p.a, b: p.b, files: p.files.sort() }))
    .sort((x, y) => (x.a === y.a ? (x.b < y.b ? -1 : 1) : x.a < y.a ? -1 : 1));
}

/** Session id → best-of-N group id, for the variants of `groups`. */
export function variantGroups(
  groups: readonly {
    readonly id: string;
    readonly members: readonly { readonly sessionId: string }[];
  }[],
): Map<string, string> {
  const map = new Map<string, string>();
  for (const group of groups) for (const m of group.members) map.set(m.sessionId, group.id);
  return map;
}

/** The overlaps of each session, from the probed pairs: conflicts first, then the most shared files. */
export function overlapMap(
  pairs: readonly (SharedPaths & { readonly conflicts: readonly string[] })[],
): OverlapMap {
  const map: Record<string, SessionOverlap[]> = {};
  const add = (id: string, overlap: SessionOverlap): void => {
    (map[id] ??= []).push(overlap);
  };
  for (const pair of pairs) {
    add(pair.a, { sessionId: pair.b, files: pair.files, conflicts: pair.conflicts });
    add(pair.b, { sessionId: pair.a, files: pair.files, conflicts: pair.conflicts });
  }
  for (const list of Object.values(map)) {
    list.sort(
      (x, y) =>
        Number(y.conflicts.length > 0) - Number(x.conflicts.length > 0) ||
        y.files.length - x.files.length ||
        (x.sessionId < y.sessionId ? -1 : 1),
    );
  }
  return map;
}

/** How a list of paths reads on one line: the first few, then how many more. */
export function fileList(files: readonly string[], shown = 3): string {
  const head = files.slice(0, shown).join(', ');
  return files.length > shown ? `${head} and ${files.length - shown} more` : head;
}

/**
 * One line per overlapping session, in words: who, which files, and whether
 * the two would conflict. `name` gives a session's label (title and short id).
 */
export function overlapLines(
  overlaps: readonly SessionOverlap[],
  name: (sessionId: string) => string,
): string[] {
  return overlaps.map((o) =>
    o.conflicts.length > 0
      ? `${name(o.sessionId)}: conflicts in ${fileList(o.conflicts)}${o.files.length > o.conflicts.length ? ` (also changes ${fileList(o.files.filter((f) => !o.conflicts.includes(f)))})` : ''}`
      : `${name(o.sessionId)}: also changes ${fileList(o.files)}`,
  );
}

/**
 * What to say before merging a session: the sessions that changed the same
 * files and so need a rebase once it lands (those that will conflict first).
 * Empty when none do.
 */
export function rebaseWarning(
  overlaps: readonly SessionOverlap[],
  name: (sessionId: string) => string,
): string[] {
  if (overlaps.length === 0) return [];
  const count =
    overlaps.length === 1 ? '1 other session changed' : `${overlaps.length} other sessions changed`;
  return [
    `${count} the same files and will need a rebase after this merge:`,
    ...overlapLines(overlaps, name).map((l) => `  ${l}`),
  ];
}

/** How another session is named in these lines: its title and short id. */
export function sessionLabel(
  session: Pick<Session, 'id' | 'title'> | undefined,
  id: string,
): string {
  return session ? `"${session.title || '(untitled)'}" (${shortId(session.id)})` : shortId(id);
}
