import { overlapMap, sharedPaths, type OverlapMap } from '../../domain/overlap.js';
import { sanitizeLine } from '../../domain/sanitize.js';
import type { GitClient } from '../ports.js';

/** What the detector needs of a live session. */
export interface OverlapSession {
  readonly id: string;
  readonly branch: string;
  readonly baseBranch: string;
}

export interface OverlapResult {
  readonly overlaps: OverlapMap;
  /** Git commands this detection ran (0 when every branch is where it was). */
  readonly gitCalls: number;
}

/**
 * Finds live sessions that changed the same files (`git diff base...branch`
 * per session) and, for those pairs only, whether their branches conflict
 * with each other (`git merge-tree --write-tree` of the two tips). Both are
 * cached by the commits involved, so a detection where no branch moved runs
 * no git command at all, and one where a branch moved re-probes only that
 * session and its pairs.
 */
export class OverlapDetector {
  /** Changed paths per session, with the tips they were read at. */
  private paths = new Map<string, { readonly key: string; readonly paths: readonly string[] }>();
  /** merge-tree conflicts per pair of tips. */
  private probes = new Map<string, readonly string[]>();

  constructor(private readonly git: GitClient) {}

  /**
   * `heads` maps local branch names to their tips (one `for-each-ref`, which
   * the caller already has). A base that is not a local branch (a tag, a
   * remote branch) has no tip there: such a session's paths are read every time.
   */
  async detect(repo: string, sessions: readonly OverlapSession[], heads: ReadonlyMap<string, string>, signal?: AbortSignal): Promise<OverlapResult> {
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
          const paths = await this.git.changedPaths(repo, baseTip ?? session.baseBranch, tip, signal).catch(() => null);
          if (paths === null) return;
          nextPaths.set(session.id, { key, paths });
        }
        tips.set(session.id, tip);
      }),
    );
    this.paths = nextPaths;
    const changed = new Map([...nextPaths].map(([id, entry]) => [id, entry.paths]));
    const pairs = sharedPaths(changed);
    const nextProbes = new Map<string, readonly string[]>();
    const probed = await Promise.all(
      pairs.map(async (pair) => {
        const a = tips.get(pair.a) ?? '';
        const b = tips.get(pair.b) ?? '';
        const key = `${a} ${b}`;
        let conflicts = this.probes.get(key) ?? nextProbes.get(key);
        if (!conflicts) {
          gitCalls++;
          conflicts = [...new Set((await this.git.mergeTreeConflicts(repo, a, b).catch(() => [] as string[])).map((p) => sanitizeLine(p)))].sort();
        }
        nextProbes.set(key, conflicts);
        return { ...pair, conflicts };
      }),
    );
    this.probes = nextProbes;
    return { overlaps: overlapMap(probed), gitCalls };
  }
}

/** One detection from scratch (a headless command: no poller has a cache). */
export async function detectOverlaps(git: GitClient, repo: string, sessions: readonly OverlapSession[], signal?: AbortSignal): Promise<OverlapMap> {
  if (sessions.length < 2) return {};
  const heads = await git.branchHeads(repo);
  return (await new OverlapDetector(git).detect(repo, sessions, heads, signal)).overlaps;
}
