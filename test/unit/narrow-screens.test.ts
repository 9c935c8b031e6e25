import { describe, expect, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import { bufferFrom } from '../../src/domain/composer.js';
import { SETTING_ROWS } from '../../src/domain/settings.js';
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

function sessionState(
  columns: number,
  rows: number,
  fields: Partial<Session> = {},
  mode: Partial<Extract<AppState['mode'], { kind: 'session' }>> = {},
): AppState {
  return appState({
    columns,
    rows,
    sessions: [makeSession('Review', { id: 's', title: 'Tidy the cache', ...fields })],
    transcripts: { s: [] },
    mode: {
      kind: 'session',
      sessionId: 's',
      scrollBack: 0,
      composer: null,
      question: null,
      ...mode,
    },
  });
}

describe.each(SIZES)('the help overlay at %i×%i', (columns, rows) => {
  it('uses the width of the terminal and wraps every description whole', () => {
    const state = { ...sessionState(columns, rows), popup: { kind: 'help' as const } };
    const frame = renderFrame(state);
    const inside = frame.lines
      .filter((line) => line.includes('│'))
      .map((line) => line.slice(line.indexOf('│') + 1, line.lastIndexOf('│')));
    expect(cellWidth((frame.lines.find((line) => line.includes('╭')) ?? '').trim())).toBe(
      columns - 2,
    );
    expect(inside.join('\n')).not.toContain('…');
    for (const line of frame.lines) expect(cellWidth(line)).toBeLessThanOrEqual(columns);
  });

  it('shows the words of a long description on the lines under its keys', () => {
    const state = {
      ...sessionState(columns, rows),
      popup: { kind: 'help' as const },
    };
    const text = renderFrame(state)
      .lines.map((line) => line.replace(/^.*?│/, '').replace(/│.*$/, '').trim())
      .join(' ')
      .replace(/\s+/g, ' ');
    expect(text).toContain(
      "Turn the focused review's findings into draft diff comments (keep, edit or drop each, then send)",
    );
  });
});

describe('the help overlay of the composer at 80×24', () => {
  it('wraps a long list of keys after a slash, never inside a key', () => {
    const state = {
      ...sessionState(80, 24, {}, { composer: bufferFrom('') }),
      popup: { kind: 'help' as const },
    };
    const text = renderFrame(state).text;
    expect(text).toContain('Shift+Enter/Alt+Enter/');
    expect(text).toMatch(/│ Ctrl\+J +Insert a new line|│ Ctrl\+J +│/);
  });
});

describe.each(SIZES)('the Settings tab at %i×%i', (columns, rows) => {
  it('never cuts a label', () => {
    const selectedSetting = SETTING_ROWS.findIndex((row) =>
      row.label.startsWith('Notify: terminal n'),
    );
    const frame = renderFrame(appState({ columns, rows, tab: 'settings', selectedSetting }));
    for (const line of frame.lines) expect(cellWidth(line)).toBeLessThanOrEqual(columns);
    expect(frame.text).toContain('Notify: terminal notification ');
    expect(frame.text).not.toMatch(/notificati…/);
  });
});

describe.each(SIZES)('a confirmation in the session view at %i×%i', (columns, rows) => {
  it('opens above the composer the person types in, and the footer shows its keys', () => {
    const state: AppState = {
      ...sessionState(columns, rows, {}, { composer: bufferFrom('half a thought') }),
      popup: {
        kind: 'confirm',
        title: 'Close the composer?',
        lines: ["The text is kept as this session's draft."],
        intent: { kind: 'closeComposer', sessionId: 's', text: 'half a thought' },
        yes: true,
      },
    };
    const frame = renderFrame(state);
    const bottom = frame.lines.findIndex((line) => line.includes('╰'));
    const typed = frame.lines.findIndex((line) => line.includes('│ half a thought'));
    expect(typed).toBeGreaterThan(bottom);
    expect(bottom).toBeGreaterThan(frame.lines.length / 2);
    expect(frame.lines.at(-2)).toContain('y yes · n no');
  });
});

describe('the session footer', () => {
  it('offers t threads only to a published session and W winner only in a best-of group', () => {
    const plain = renderFrame(sessionState(200, 30));
    expect(plain.lines.at(-2)).not.toContain('t threads');
    expect(plain.lines.at(-2)).not.toContain('W winner');

    const published = renderFrame(
      sessionState(200, 30, {
        reviewRequest: { number: 7, url: 'https://example.invalid/pr/7', state: 'open' },
      } as Partial<Session>),
    );
    expect(published.lines.at(-2)).toContain('t threads');
    const grouped = {
      ...sessionState(200, 30),
      groups: {
        g: {
          id: 'g',
          projectId: 1,
          prompt: 'task',
          status: 'ranked' as const,
          members: [{ sessionId: 's', position: 1, check: null }],
          ranking: [],
          note: null,
          chosenSessionId: null,
          createdAt: 0,
        },
      },
    };
    expect(renderFrame(grouped).lines.at(-2)).toContain('W winner');
  });
});
