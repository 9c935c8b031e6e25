import { describe, expect, it } from 'vitest';
import { reduce } from '../../src/app/reducer.js';
import { makeSession } from '../helpers/session-factory.js';
import { bareState } from '../helpers/state.js';

const state = bareState;

describe('reducer', () => {
  it('adds a session it has not seen and selects it when nothing was selected', () => {
    const s = makeSession('Draft');
    const next = reduce(state(), { type: 'sessionUpdated', session: s });
    expect(next.sessions).toEqual([s]);
    expect(next.selectedSessionId).toBe(s.id);
  });

  it('ignores sessions of another project', () => {
    const s = makeSession('Draft', { projectId: 2 });
    expect(reduce(state(), { type: 'sessionUpdated', session: s })).toEqual(state());
  });

  it('replaces an updated session in place', () => {
    const s = makeSession('InProgress');
    const updated = { ...s, status: 'Review' as const };
    const next = reduce(state({ sessions: [s] }), { type: 'sessionUpdated', session: updated });
    expect(next.sessions).toEqual([updated]);
  });

  it('keeps a newer row when an older read of the same session arrives after it', () => {
    const running = makeSession('InProgress', { updatedAt: 1_000 });
    const ended = { ...running, status: 'Review' as const, updatedAt: 2_000 };
    const after = reduce(state({ sessions: [running] }), {
      type: 'sessionUpdated',
      session: ended,
    });
    const stale = reduce(after, { type: 'sessionUpdated', session: running });
    expect(stale.sessions[0]?.status).toBe('Review');
    // A write in the same millisecond is not older: it is taken.
    const same = { ...ended, title: 'Renamed' };
    expect(reduce(after, { type: 'sessionUpdated', session: same }).sessions[0]?.title).toBe(
      'Renamed',
    );
  });

  it('returns the same snapshot when nothing changes, so no frame is drawn', () => {
    const before = state();
    expect(reduce(before, { type: 'resize', columns: 100, rows: 30 })).toBe(before);
    expect(reduce(before, { type: 'tab', tab: 'sessions' })).toBe(before);
  });

  it('leaves the session view when its session is removed', () => {
    const s = makeSession('Draft');
    const open = state({
      sessions: [s],
      selectedSessionId: s.id,
      mode: { kind: 'session', sessionId: s.id, scrollBack: 0, composer: null, question: null },
    });
    const next = reduce(open, { type: 'sessionRemoved', sessionId: s.id });
    expect(next.mode).toEqual({ kind: 'list' });
    expect(next.selectedSessionId).toBeNull();
  });

  it('appends only transcript rows newer than those it has', () => {
    const entry = (position: number) => ({
      position,
      kind: 'notice' as const,
      content: `n${position}`,
      createdAt: 0,
    });
    const loaded = reduce(state(), {
      type: 'transcriptLoaded',
      sessionId: 'x',
      entries: [entry(0), entry(1)],
    });
    const next = reduce(loaded, {
      type: 'transcriptAppended',
      sessionId: 'x',
      entries: [entry(1), entry(2)],
    });
    expect(next.transcripts['x']?.map((e) => e.position)).toEqual([0, 1, 2]);
  });

  it('drops git status of a project that is no longer active', () => {
    const status = {
      branch: 'main',
      upstream: null,
      ahead: 0,
      behind: 0,
      conflicts: [],
      sessions: {},
      error: null,
    };
    expect(reduce(state(), { type: 'gitStatus', projectId: 9, status }).git).toBeNull();
    expect(reduce(state(), { type: 'gitStatus', projectId: 1, status }).git).toEqual(status);
  });

  it('clears a progress line with null', () => {
    const withProgress = reduce(state(), { type: 'progress', sessionId: 'x', text: 'Thinking…' });
    expect(withProgress.progress).toEqual({ x: 'Thinking…' });
    expect(reduce(withProgress, { type: 'progress', sessionId: 'x', text: null }).progress).toEqual(
      {},
    );
  });
});
