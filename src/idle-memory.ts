// Memory given back when the TUI goes quiet (issue 26, item 3). A long day's
// work (turns streaming, transcripts laid out) leaves V8's heap grown to
// what its busiest moment needed, and V8 keeps those pages while nothing
// allocates. Once the TUI has drawn no frame for a while after a stretch of
// work, one memory-reducing full GC gives back what is no longer live (the
// entry point's settleMemory does the same once after start-up). Nothing is
// collected while frames keep coming, so no key waits on it.
// Node's own modules only: the entry point loads this file.

/** Quiet this long (no frame drawn) counts as idle. */
export const IDLE_MS = 30_000;
/** Frames drawn since the last collection that make one worth it (a minute of streaming or a few turns). */
export const WORK_FRAMES = 200;

export class IdleCollector {
  private frames = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly collect: () => void,
    private readonly idleMs = IDLE_MS,
    private readonly workFrames = WORK_FRAMES,
  ) {}

  /** A frame was drawn: the quiet starts again from now. */
  frame(): void {
    this.frames++;
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => this.quiet(), this.idleMs);
    this.timer.unref();
  }

  private quiet(): void {
    this.timer = null;
    if (this.frames < this.workFrames) return;
    this.frames = 0;
    this.collect();
  }
}
