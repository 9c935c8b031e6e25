// How long Grove waits before each try to reach a host again after the link
// dropped (issue 24): 1, 2, 4, 7, 10 s, then every 10 s, each within ±20 %
// so many followers of one host do not all knock at the same moment. There
// is no last try: a follower keeps trying while the run on the host may still
// be going (the turn's own time limit and a stop still end the turn).

/** The waits of the first tries, in ms; every later try waits the last. */
export const RECONNECT_STEPS_MS: readonly number[] = [1000, 2000, 4000, 7000, 10_000];

/** How far a wait may stray from its step, either way (0.2: ±20 %). */
export const RECONNECT_JITTER = 0.2;

/**
 * The wait before try `attempt` (1 for the first try after the drop), in ms.
 * `random` is a number in [0, 1) (Math.random()): 0 gives the shortest wait,
 * 0.5 the step itself, values towards 1 the longest.
 */
export function reconnectDelayMs(attempt: number, random: number): number {
  const index = Math.min(Math.max(Math.floor(attempt), 1), RECONNECT_STEPS_MS.length) - 1;
  const step = RECONNECT_STEPS_MS[index] ?? 10_000;
  const r = Number.isFinite(random) ? Math.min(Math.max(random, 0), 1) : 0.5;
  return Math.round(step * (1 - RECONNECT_JITTER + 2 * RECONNECT_JITTER * r));
}

/** The progress line while the link is down: 'Reconnecting to build (try 3, next in 4s)'. */
export function reconnectingLine(host: string, attempt: number, delayMs: number): string {
  return `Reconnecting to ${host} (try ${String(attempt)}, next in ${String(Math.max(1, Math.round(delayMs / 1000)))}s)`;
}

/** Whether a progress line is one of reconnectingLine's: the session's host cannot be reached right now. */
export function isReconnectingLine(text: string | null | undefined): boolean {
  return typeof text === 'string' && /^Reconnecting to \S+ \(try \d+, next in \d+s\)$/.test(text);
}
