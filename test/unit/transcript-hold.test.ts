import { describe, expect, it } from 'vitest';
import { reduce } from '../../src/app/reducer.js';
import type { AppState } from '../../src/app/state.js';
import { TRANSCRIPTS_HELD } from '../../src/app/transcript-hold.js';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import { makeSession } from '../helpers/session-factory.js';
import { bareState } from '../helpers/state.js';

// The app holds the transcripts of the open session and of the few opened
// before it, not of every session opened since start (a transcript grows
// with every turn: the soak's memory grew with the day's work).

const entry = (position: number): TranscriptEntry => ({
  position,
  kind: 'notice',
  content: `entry ${position}`,
  createdAt: 0,
});

const ids = Array.from({ length: TRANSCRIPTS_HELD + 4 }, (_, i) => `s${i}`);

/** Opens a session as the app does: the view, then its transcript read from the store. */
function open(state: AppState, sessionId: string, entries = [entry(0), entry(1)]): AppState {
  const opened = reduce(state, { type: 'sessionOpened', sessionId, compose: false });
  return reduce(opened, { type: 'transcriptLoaded', sessionId, entries });
}

const back = (state: AppState): AppState => reduce(state, { type: 'mode', mode: { kind: 'list' } });

const start = (): AppState =>
  bareState({ sessions: ids.map((id) => makeSession('Review', { id })) });

describe('the transcripts held', () => {
  it('are those of the last sessions opened, however many were opened', () => {
    let state = start();
    for (const id of ids) state = back(open(state, id));
    const held = ids.slice(-TRANSCRIPTS_HELD);
    expect(Object.keys(state.transcripts).sort()).toEqual([...held].sort());
    expect(state.transcriptOrder).toEqual([...held].reverse());
  });

  it('keep an older one that is opened again, and drop the oldest instead', () => {
    let state = start();
    for (const id of ids.slice(0, TRANSCRIPTS_HELD)) state = back(open(state, id));
    state = back(open(state, 's0'));
    state = back(open(state, ids[TRANSCRIPTS_HELD] ?? ''));
    expect(state.transcripts['s0']).toBeDefined();
    expect(state.transcripts['s1']).toBeUndefined();
  });

  it('take no entries of a session neither open nor held, and read it whole when it is opened', () => {
    let state = start();
    for (const id of ids) state = back(open(state, id));
    // s0 was dropped; its agent goes on writing.
    state = reduce(state, { type: 'transcriptAppended', sessionId: 's0', entries: [entry(2)] });
    expect(state.transcripts['s0']).toBeUndefined();
    state = open(state, 's0', [entry(0), entry(1), entry(2)]);
    expect(state.transcripts['s0']?.map((e) => e.position)).toEqual([0, 1, 2]);
  });

  it('take the entries of the open session, also before its transcript is read', () => {
    let state = reduce(start(), { type: 'sessionOpened', sessionId: 's3', compose: false });
    state = reduce(state, { type: 'transcriptAppended', sessionId: 's3', entries: [entry(5)] });
    expect(state.transcripts['s3']?.map((e) => e.position)).toEqual([5]);
  });

  it('keep an entry appended while the transcript was being read, which the read missed', () => {
    let state = reduce(start(), { type: 'sessionOpened', sessionId: 's3', compose: false });
    state = reduce(state, { type: 'transcriptAppended', sessionId: 's3', entries: [entry(2)] });
    // The read began before entry 2 was stored.
    state = reduce(state, {
      type: 'transcriptLoaded',
      sessionId: 's3',
      entries: [entry(0), entry(1)],
    });
    expect(state.transcripts['s3']?.map((e) => e.position)).toEqual([0, 1, 2]);
  });

  it('forget a removed session', () => {
    let state = back(open(start(), 's2'));
    state = reduce(state, { type: 'sessionRemoved', sessionId: 's2' });
    expect(state.transcripts['s2']).toBeUndefined();
    expect(state.transcriptOrder).toEqual([]);
  });
});
