/** Time behind an interface so timers and timestamps can be pinned in tests. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
