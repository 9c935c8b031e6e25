import { describe, expect, it } from 'vitest';
import {
  reconnectDelayMs,
  reconnectingLine,
  RECONNECT_STEPS_MS,
} from '../../src/domain/reconnect.js';

describe('the waits between tries to reach a host again', () => {
  it('are 1, 2, 4, 7 and 10 s, then 10 s for every later try, with no last try', () => {
    const middle = Array.from({ length: 40 }, (_, i) => reconnectDelayMs(i + 1, 0.5));
    expect(middle.slice(0, 6)).toEqual([1000, 2000, 4000, 7000, 10_000, 10_000]);
    expect(new Set(middle.slice(4))).toEqual(new Set([10_000]));
    expect(reconnectDelayMs(10_000, 0.5)).toBe(10_000);
    expect(RECONNECT_STEPS_MS).toEqual([1000, 2000, 4000, 7000, 10_000]);
  });

  it('stray at most 20 % either way, and reach both ends', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const step = reconnectDelayMs(attempt, 0.5);
      for (const r of [0, 0.1, 0.37, 0.5, 0.81, 0.999999]) {
        const wait = reconnectDelayMs(attempt, r);
        expect(wait).toBeGreaterThanOrEqual(Math.round(step * 0.8));
        expect(wait).toBeLessThanOrEqual(Math.round(step * 1.2));
      }
      expect(reconnectDelayMs(attempt, 0)).toBe(Math.round(step * 0.8));
      expect(reconnectDelayMs(attempt, 0.999999)).toBe(Math.round(step * 1.2));
    }
    // Random waits of one try differ (the jitter is used), and stay in bounds.
    const waits = Array.from({ length: 200 }, () => reconnectDelayMs(6, Math.random()));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(8000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(12_000);
    expect(new Set(waits).size).toBeGreaterThan(10);
  });

  it('treat odd input as the nearest sensible try', () => {
    expect(reconnectDelayMs(0, 0.5)).toBe(1000);
    expect(reconnectDelayMs(-3, 0.5)).toBe(1000);
    expect(reconnectDelayMs(2.7, 0.5)).toBe(2000);
    expect(reconnectDelayMs(3, Number.NaN)).toBe(4000);
    expect(reconnectDelayMs(3, 7)).toBe(4800);
  });

  it('are named on the progress line in whole seconds', () => {
    expect(reconnectingLine('build', 3, 4321)).toBe('Reconnecting to build (try 3, next in 4s)');
    expect(reconnectingLine('build', 1, 820)).toBe('Reconnecting to build (try 1, next in 1s)');
  });
});
