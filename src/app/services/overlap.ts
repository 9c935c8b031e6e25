import { overlapMap, sharedPaths, variantGroups, type OverlapMap } from '../../domain/overlap.js';
import type { SessionGroup } from '../../domain/best-of.js';
import { sanitizePath } from '../../domain/sanitize.js';
import type { GitClient } from '../ports.js';

/** What the detector needs of a live session. */
export interface OverlapSession {
  readonly id: string;
  readonly branch: string;
  readonly baseBranch: string;
  /** Its best-of-N group: variants of one group are never reported against each other. */
  readonly group?: string | null;
}

export interface OverlapResult {
  readonly overlaps: OverlapMap;
  /** Git commands this detection ran (0 when every branch is where it was). */
  readonly gitCalls: number;
}

/**
 * Finds live sessions that changed the same files (`git diff base...branch`
 * per session) and, for those pairs only, whether their branches conflict
 * with each other (`git merge-tree` of the two tips, every pair in one
 * `merge-tree --stdin`). Both are
 * cached by the commits involved, so a detection where no branch moved runs
 * no git command at all, and one where a branch moved re-probes only that
 * session and its pairs.
 */
export class OverlapDetector {
  /** Changed paths per session, with the tips they were read at. */
  private paths = new Map<string, { readonly key: string; readonly paths: readonly string[] }>();
  /** merge-tree conflicts per pair of tips. */
  private probes = new Map<string, readonly string[]>();

  /** `onPaths`: a session's changed paths were read at these tips (`key`), for the caller to keep. */
  constructor(
    private readonly git: GitClient,
    private readonly onPaths?: (sessionId: string, key: string, paths: readonly string[]) => void,
  ) {}

  /** Changed paths read by an earlier process, by session (reused while the tips in `key` hold). */
  remember(
    known: ReadonlyMap<string, { readonly key: string; readonly paths: readonly string[] }>,
  ): void {
    for (const [id, entry] of known) if (!this.paths.has(id)) this.paths.set(id, entry);
  }

  /**
   * `heads` maps local branch names to their tips (one `for-each-ref`, which
   * the caller already has). A base that is not a local branch (a tag, a
   * remote branch) has no tip there: such a session's paths are read every time.
   */
  async detect(
    repo: string,
    sessions: readonly OverlapSession[],
    heads: ReadonlyMap<string, string>,
    signal?: AbortSignal,
  ): Promise<OverlapResult> {
    if (sessions.length < 2) return { overlaps: {}, gitCalls: 0 };
    let gitCalls = 0;
    const tips = new Map<string, string>();
    const nextPaths = new Map<string, { key: string; paths: readonly string[] }>();
    await Promise.all(
      sessions.map(async (session) => {
        const tip = heads.get(session.branch);
        if (!tip) return;
        const baseTip = heads.get(session.baseBranch);
        const key = `${tip} ${baseTip ?? ''}`;
        const known = this.paths.get(session.id);
        if (known && known.key === key && baseTip !== undefined) {
          nextPaths.set(session.id, known);
        } else {
          gitCalls++;
          const paths = await this.git
            .changedPaths(repo, baseTip ?? session.baseBranch, tip, signal)
            .catch(() => null);
          if (paths === null) return;
          nextPaths.set(session.id, { key, paths });
          if (baseTip !== undefined) this.onPaths?.(session.id, key, paths);
        }
        tips.set(session.id, tip);
      }),
    );
    this.paths = nextPaths;
    const changed = new Map([...nextPaths].map(([id, entry]) => [id, entry.paths]));
    const groupOf = new Map<string, string>();
    for (const session of sessions) if (session.group) groupOf.set(session.id, session.group);
    const pairs = sharedPaths(changed, groupOf);
    const keyOf = (pair: { a: string; b: string }): [string, string, string] => {
      const a = tips.get(pair.a) ?? '';
      const b = tips.get(pair.b) ?? '';
      return [`${a} ${b}`, a, b];
    };
    // Pairs whose tips were not probed before: all in one git command.
    const fresh = new Map<string, readonly [string, string]>();
    for (const pair of pairs) {
      const [key, a, b] = keyOf(pair);
      if (!this.probes.has(key)) fresh.set(key, [a, b]);
    }
    const nextProbes = new Map<string, readonly string[]>();
    if (fresh.size > 0) {
      gitCalls++;
      const results = await this.git
        .mergeTreeConflictsBatch(repo, [...fresh.values()], signal)
        .catch(() => null);
      [...fresh.keys()].forEach((key, i) => {
        const conflicts = results?.[i];
        // A failed probe is not cached: the next cycle asks again.
        if (conflicts)
          nextProbes.set(key, [...new Set(conflicts.map((p) => sanitizePath(p)))].sort());
      });
    }
    const probed = pairs.map((pair) => {
      const [key] = keyOf(pair);
      const conflicts = this.probes.get(key) ?? nextProbes.get(key) ?? [];
      if (this.probes.has(key)) nextProbes.set(key, conflicts);
      return { ...pair, conflicts };
    });
    this.probes = nextProbes;
    return { overlaps: overlapMap(probed), gitCalls };
  }
}

/** The sessions for the detector, each with its best-of-N group among `groups`. */
export function withVariantGroups<S extends OverlapSession>(
  sessions: readonly S[],
  groups: readonly SessionGroup[],
): (S & { readonly group: string | null })[] {
  const groupOf = variantGroups(groups);
  return sessions.map((s) => ({ ...s, group: groupOf.get(s.id) ?? null }));
}

/** One detection from scratch (a headless command: no poller has a cache). */
export async function detectOverlaps(
  git: GitClient,
  repo: string,
  sessions: readonly OverlapSession[],
  signal?: AbortSignal,
): Promise<OverlapMap> {
  if (sessions.length < 2) return {};
  const heads = await git.branchHeads(repo);
  return (await new OverlapDetector(git).detect(repo, sessions, heads, signal)).overlaps;
}
