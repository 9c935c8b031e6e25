import { checksState, type CheckInfo, type PullRequestChecks } from '../../../domain/checks.js';
import type { ForgeConnection } from '../../ports.js';
import type { ReviewContext } from './context.js';

/** How long a secondary rate limit that names no wait keeps the checks refresh away (GitHub: at least a minute). */
const SECONDARY_WAIT_MS = 60_000;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** When a rate-limit error says the API may be asked again (epoch ms), else null. */
export function rateLimitWait(error: unknown, now: number): number | null {
  const failure = error as { reason?: unknown; resetAt?: unknown } | null;
  if (typeof failure?.resetAt === 'number') return failure.resetAt;
  return failure?.reason === 'rate_limited' ? now + SECONDARY_WAIT_MS : null;
}

/** A stored check that is the same failure as `check`, whose log tail can be kept. */
function sameFailure(stored: readonly CheckInfo[], check: CheckInfo): CheckInfo | undefined {
  return stored.find(
    (s) =>
      s.kind === check.kind &&
      s.jobId === check.jobId &&
      s.name === check.name &&
      s.conclusion === check.conclusion &&
      s.logTail !== null,
  );
}

/**
 * Reads the head commit's check runs and commit statuses, each with
 * If-None-Match on the ETag of the last answer (a 304 costs no rate limit,
 * and then nothing is written), and the log tail of each failing GitHub
 * Actions job (read once per failure). A new head commit starts over.
 * Stores the checks with the badge they make and returns them. Throws the
 * forge's error in words (the checks read before stay stored).
 */
export async function refreshChecks(
  ctx: ReviewContext,
  sessionId: string,
  headSha: string,
  connection: ForgeConnection,
  signal: AbortSignal,
): Promise<PullRequestChecks> {
  const { store } = ctx.deps;
  const before = await store.pullRequestChecks.get(sessionId);
  const same = before?.headSha === headSha ? before : undefined;
  const runs = await connection.checkRuns(headSha, same?.runsEtag ?? null, signal);
  const statuses = await connection.commitStatuses(headSha, same?.statusesEtag ?? null, signal);
  if (same && !runs.changed && !statuses.changed && same.error === null) return same;
  const storedRuns = (same?.checks ?? []).filter((c) => c.kind === 'check_run');
  const storedStatuses = (same?.checks ?? []).filter((c) => c.kind === 'status');
  const runChecks = runs.changed ? runs.items : storedRuns;
  const withLogs: CheckInfo[] = [];
  for (const check of runChecks) {
    if (check.state !== 'failing' || check.jobId === null || check.logTail !== null) {
      withLogs.push(check);
      continue;
    }
    const kept = sameFailure(storedRuns, check);
    if (kept) {
      withLogs.push({ ...check, logTail: kept.logTail, logError: null });
      continue;
    }
    try {
      const tail = await connection.jobLogTail(check.jobId, signal);
      withLogs.push({ ...check, logTail: tail, logError: null });
    } catch (error) {
      // A rate limit stops the refresh (nothing of it is stored); any other
      // failure is this check's, in words, and the rest is kept.
      if (rateLimitWait(error, ctx.now()) !== null) throw error;
      withLogs.push({
        ...check,
        logTail: null,
        logError: `The log could not be read: ${errorText(error)}`,
      });
    }
  }
  const checks = [...withLogs, ...(statuses.changed ? statuses.items : storedStatuses)];
  const next: PullRequestChecks = {
    headSha,
    runsEtag: runs.changed ? runs.etag : (same?.runsEtag ?? null),
    statusesEtag: statuses.changed ? statuses.etag : (same?.statusesEtag ?? null),
    checks,
    state: checksState(checks),
    error: null,
    fetchedAt: ctx.now(),
  };
  await store.pullRequestChecks.save(sessionId, next);
  return next;
}

/**
 * Stores that the checks refresh failed, in words: the checks read before
 * stay when they are of the same head commit, else none are shown. Returns
 * what is stored.
 */
export async function checksFailed(
  ctx: ReviewContext,
  sessionId: string,
  headSha: string,
  error: unknown,
): Promise<PullRequestChecks> {
  const { store } = ctx.deps;
  const before = await store.pullRequestChecks.get(sessionId);
  const kept: PullRequestChecks =
    before?.headSha === headSha
      ? before
      : {
          headSha,
          runsEtag: null,
          statusesEtag: null,
          checks: [],
          state: null,
          error: null,
          fetchedAt: 0,
        };
  const next = {
    ...kept,
    error: `The checks could not be read: ${errorText(error)}`,
    fetchedAt: ctx.now(),
  };
  await store.pullRequestChecks.save(sessionId, next);
  return next;
}
