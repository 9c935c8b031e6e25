import { describe, expect, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import type { Session } from '../../src/domain/session.js';
import { appState, cellWidth, renderFrame } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// Narrow terminals (issue 22, item 7): at 80×24 and 120×40 every row of the
// list keeps its title readable and fits the screen, the help and Settings
// use the width they have and cut nothing.

const SIZES = [
  [80, 24],
  [120, 40],
] as const;

const TITLE = 'Fix the login flow for people with very long names';

function busyList(columns: number, rows: number): AppState {
  const sessions: Session[] = [
    makeSession('Review', {
      id: 'a',
      title: TITLE,
      questions: [
        { text: 'Which?', options: [] },
        { text: 'Where?', options: [] },
      ],
      addedLines: 120,
      deletedLines: 7,
    }),
    makeSession('InProgress', { id: 'b', title: TITLE, addedLines: 3, deletedLines: 1 }),
    makeSession('Review', { id: 'c', title: TITLE }),
  ];
  const group = {
    id: 'g',
    projectId: 1,
    prompt: 'task',
    status: 'ranked' as const,
    members: [
      { sessionId: 'a', position: 1, check: null },
      { sessionId: 'c', position: 2, check: null },
    ],
    ranking: [
      { sessionId: 'a', rank: 1, reason: '' },
      { sessionId: 'c', rank: 2, reason: '' },
    ],
    note: null,
    chosenSessionId: 'a',
    createdAt: 0,
  };
  return appState({
    columns,
    rows,
    sessions,
    selectedSessionId: 'b',
    groups: { g: group },
    attention: { a: 'question', c: 'review' },
    git: {
      branch: 'main',
      upstream: null,
      ahead: 0,
      behind: 0,
      sessions: {},
      conflicts: ['a'],
      overlaps: {
        a: [{ sessionId: 'c', files: ['x.ts'], conflicts: ['x.ts'] }],
        c: [{ sessionId: 'a', files: ['x.ts'], conflicts: [] }],
      },
    } as unknown as AppState['git'],
    budget: { held: { a: {} } } as unknown as AppState['budget'],
  });
}

describe.each(SIZES)('the session list at %i×%i', (columns, rows) => {
  it('keeps at least 12 cells of every title before its badges, and no row is wider than the screen', () => {
    const frame = renderFrame(busyList(columns, rows));
    const rowsOf = frame.lines.filter((line) => line.includes('Fix the login'));
    expect(rowsOf).toHaveLength(3);
    for (const line of frame.lines) expect(cellWidth(line)).toBeLessThanOrEqual(columns);
    for (const line of rowsOf) expect(line).toContain('Fix the logi');
  });

  it('collapses badges to short forms where the full ones do not fit', () => {
    const frame = renderFrame(busyList(columns, rows));
    const row = frame.lines.find((line) => line.includes('Fix the login') && line.includes('?'));
    if (columns === 80) expect(row).toContain('[2?]');
    else expect(row).toMatch(/\[2 questions\]|\[2\?\]/);
  });

  it('keeps a cell between a cut title and the +/- column', () => {
    const frame = renderFrame(busyList(columns, rows));
    const row = frame.lines.find((line) => line.includes('+3/-1')) ?? '';
    expect(row).toMatch(/\S… +\+3\/-1/);
  });
});
