// The launcher's part of session limits (limits.ts): which limits a
// session's agent gets, the command line that applies them, what each
// session's agents met, and the one line saying limits cannot be enforced.
import {
  hasLimits,
  limitsUnavailableText,
  NO_LIMITS,
  type LimitHit,
  type SessionLimits,
} from '../../../domain/limits.js';
import {
  probeLimits,
  startLimited,
  sweepLimitCgroups,
  type LimitBackend,
  type LimitedRun,
} from './limits.js';

export interface LimitKeeper {
  /**
   * The command line for one agent of `sessionId`: unchanged when it has no
   * limits or they cannot be enforced; else wrapped, with the run to follow.
   * Throws an Error in words when the cgroup cannot be made.
   */
  prepare(
    sessionId: string | undefined,
    command: string,
    args: readonly string[],
    env: NodeJS.ProcessEnv,
  ): Promise<{ command: string; args: readonly string[]; run: LimitedRun | null }>;
  /** Follows a started agent's run until it ends (then its cgroup is removed). */
  started(sessionId: string, run: LimitedRun, exited: Promise<unknown>): void;
  /** The limit the session's agents met since the last call (none: null). */
  takeHit(sessionId: string): Promise<LimitHit | null>;
  /** Once per session in this process: the line saying its limits are not enforced here, or null. */
  notice(sessionId: string): Promise<string | null>;
  /** How limits are enforced on this machine (probed once). */
  backend(): Promise<LimitBackend>;
}

export function createLimitKeeper(
  limitsOf: ((sessionId: string) => Promise<SessionLimits>) | undefined,
  probe: () => Promise<LimitBackend> = () => probeLimits(),
): LimitKeeper {
  let probed: Promise<LimitBackend> | null = null;
  const backend = (): Promise<LimitBackend> => {
    probed ??= probe().then((found) => {
      // Cgroups left by Grove processes that were killed before removing theirs.
      sweepLimitCgroups(found);
      return found;
    });
    return probed;
  };
  const runs = new Map<string, Set<{ run: LimitedRun; done: Promise<void> | null }>>();
  const told = new Set<string>();
  const limitsFor = async (sessionId: string | undefined): Promise<SessionLimits> =>
    sessionId === undefined || !limitsOf
      ? NO_LIMITS
      : await limitsOf(sessionId).catch(() => NO_LIMITS);

  return {
    backend,
    async prepare(sessionId, command, args, env) {
      const limits = await limitsFor(sessionId);
      if (!hasLimits(limits)) return { command, args, run: null };
      const how = await backend();
      if (how.kind === 'unavailable') return { command, args, run: null };
      const run = startLimited(how, limits, command, args, env);
      return { command: run.command, args: run.args, run };
    },
    started(sessionId, run, exited) {
      const entry: { run: LimitedRun; done: Promise<void> | null } = { run, done: null };
      const set = runs.get(sessionId) ?? new Set();
      set.add(entry);
      runs.set(sessionId, set);
      void exited.then(() => {
        entry.done = run.finish();
      });
    },
    async takeHit(sessionId) {
      const set = runs.get(sessionId);
      if (!set) return null;
      let hit: LimitHit | null = null;
      for (const entry of set) {
        if (entry.done) {
          await entry.done;
          set.delete(entry);
        }
        const met = await entry.run.takeHit();
        hit ??= met;
      }
      if (set.size === 0) runs.delete(sessionId);
      return hit;
    },
    async notice(sessionId) {
      if (told.has(sessionId)) return null;
      const limits = await limitsFor(sessionId);
      if (!hasLimits(limits)) return null;
      const how = await backend();
      if (how.kind !== 'unavailable') return null;
      told.add(sessionId);
      return limitsUnavailableText(limits, how.reason);
    },
  };
}
