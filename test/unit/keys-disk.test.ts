import { describe, expect, it } from 'vitest';
import type { DiskMeasure } from '../../src/domain/disk.js';
import { makeSession } from '../helpers/session-factory.js';
import { pressKeys } from '../helpers/keys.js';
import { bareState } from '../helpers/state.js';

function measured(id: string, allocated: number): DiskMeasure {
  const s = makeSession('Review', { id, projectId: 1 });
  return { allocated, apparent: allocated, shared: [], measuredAt: 0, session: s };
}

describe('the Disk view', () => {
  it('D on the Sessions tab opens it and asks for the worktrees to be walked in the background', () => {
    const opened = pressKeys(bareState({ tab: 'sessions' }), ['D']);
    expect(opened.state.diskView).toEqual({ cursor: 0 });
    expect(opened.calls.map((c) => c.method)).toEqual(['measureDisk']);
  });

  it('moves over the measured worktrees, stays within them, and Esc, q or D close it', () => {
    const state = bareState({
      tab: 'sessions',
      activeProjectId: 1,
      disk: { a: measured('a', 3), b: measured('b', 2) },
      diskView: { cursor: 0 },
    });
    expect(pressKeys(state, ['j', 'j', 'j']).state.diskView).toEqual({ cursor: 1 });
    expect(pressKeys(state, ['j', 'k', 'k']).state.diskView).toEqual({ cursor: 0 });
    for (const key of ['escape', 'q', 'D']) {
      const closed = pressKeys(state, [key]);
      expect(closed.state.diskView).toBeNull();
      expect(closed.state.exiting).toBe(false);
      expect(closed.calls).toEqual([]);
    }
  });

  it('keys of the sessions list do nothing while it is open', () => {
    const state = bareState({ tab: 'sessions', diskView: { cursor: 0 } });
    const run = pressKeys(state, ['a', 'c', 'r']);
    expect(run.calls).toEqual([]);
    expect(run.state.diskView).toEqual({ cursor: 0 });
  });
});
