import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdleCollector } from '../../src/idle-memory.js';

// When the TUI gives memory back (src/idle-memory.ts): once it has drawn no
// frame for a while after a stretch of work, never while frames keep coming.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the idle collector', () => {
  it('collects once the frames stop after a stretch of work, and not again until more work', () => {
    const collect = vi.fn();
    const idle = new IdleCollector(collect, 30_000, 10);
    for (let i = 0; i < 10; i++) {
      idle.frame();
      vi.advanceTimersByTime(1_000);
    }
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(29_000);
    expect(collect).toHaveBeenCalledTimes(1);
    // A few frames (a clock, a key) are not a stretch of work.
    idle.frame();
    vi.advanceTimersByTime(60_000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('never collects while frames keep coming', () => {
    const collect = vi.fn();
    const idle = new IdleCollector(collect, 30_000, 10);
    for (let i = 0; i < 200; i++) {
      idle.frame();
      vi.advanceTimersByTime(29_000);
    }
    expect(collect).not.toHaveBeenCalled();
  });
});
