import { describe, expect, it } from 'vitest';
import { diffMode, type AppState, type DiffFileView } from '../../src/app/state.js';
import { bufferFrom } from '../../src/domain/composer.js';
import { slashCompletions } from '../../src/domain/slash-commands.js';
import { displayKey, displayKeys } from '../../src/domain/keymap.js';
import { availableBindings } from '../../src/domain/key-lookup.js';
import type { Session } from '../../src/domain/session.js';
import type { SessionStatus } from '../../src/domain/session-status.js';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import { appState, cellWidth, renderFrame, type Frame } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// The screen painter: the whole screen rendered from one snapshot, as text.

const STATUSES: readonly SessionStatus[] = ['Review', 'InProgress', 'Done', 'Queued', 'Question'];

/** 30 sessions titled T00…T29 across the three groups; more than a 20-row screen holds. */
const sessions: Session[] = Array.from({ length: 30 }, (_, i) =>
  makeSession(STATUSES[i % STATUSES.length] ?? 'Review', {
    id: `s${i}`,
    title: `T${String(i).padStart(2, '0')} fix the login flow for people with long names`,
    createdAt: i,
    updatedAt: i,
  }),
);

/** 3,000 one-line notices: far more than any screen shows. */
const longTranscript: TranscriptEntry[] = Array.from({ length: 3000 }, (_, i) => ({
  position: i,
  kind: 'notice',
  content: `entry ${i}`,
  createdAt: 0,
}));

const SIZES = [
  [120, 40],
  [60, 20],
] as const;

function listState(columns: number, rows: number, fields: Partial<AppState> = {}): AppState {
  return appState({ columns, rows, sessions, selectedSessionId: 's7', ...fields });
}

function sessionState(
  columns: number,
  rows: number,
  mode: Partial<Extract<AppState['mode'], { kind: 'session' }>> = {},
): AppState {
  return appState({
    columns,
    rows,
    sessions,
    transcripts: { s0: longTranscript },
    mode: {
      kind: 'session',
      sessionId: 's0',
      scrollBack: 0,
      composer: null,
      question: null,
      ...mode,
    },
  });
}

const files: DiffFileView[] = Array.from({ length: 40 }, (_, i) => ({
  path: `src/module-${i}/a-rather-long-file-name-${i}.ts`,
  status: 'M',
  added: 3,
  deleted: 1,
  binary: false,
  patch: [
    '@@ -1,2 +1,4 @@',
    ...Array.from({ length: 80 }, (_, j) => `+const value${j} = ${'x'.repeat(200)};`),
  ].join('\n'),
  summarized: null,
}));

/** Every page and overlay, for the full-screen rule. */
const SCREENS: Record<string, (columns: number, rows: number) => AppState> = {
  'the sessions list': (c, r) => listState(c, r),
  'the projects tab': (c, r) => listState(c, r, { tab: 'projects' }),
  'the settings tab': (c, r) => listState(c, r, { tab: 'settings' }),
  'a session with a long transcript': (c, r) => sessionState(c, r),
  'the composer': (c, r) =>
    sessionState(c, r, { composer: bufferFrom('a prompt\nof several\nlines '.repeat(8)) }),
  'a question': (c, r) => ({
    ...sessionState(c, r, {
      question: { index: 0, selected: 1, answers: [], buffer: bufferFrom('') },
    }),
    sessions: sessions.map((s) =>
      s.id === 's0'
        ? {
            ...s,
            status: 'Question' as const,
            questions: [
              {
                text: 'Which database should the cache use? '.repeat(4),
                options: ['SQLite', 'Postgres', 'None'],
              },
            ],
          }
        : s,
    ),
  }),
  'a large diff': (c, r) =>
    appState({
      columns: c,
      rows: r,
      sessions,
      mode: diffMode('s0', { fileIndex: 3, scroll: 10, cursor: 12 }),
      diff: { sessionId: 's0', loading: false, error: null, files, added: 120, deleted: 40 },
    }),
  'the help overlay': (c, r) => listState(c, r, { popup: { kind: 'help' } }),
  'a confirmation over the list': (c, r) =>
    listState(c, r, {
      popup: {
        kind: 'confirm',
        title: 'Quit Grove?',
        lines: ['Running agents are stopped. '.repeat(10)],
        intent: { kind: 'quit' },
        yes: false,
      },
    }),
  'the composer with a slash picker': (c, r) => {
    const base = sessionState(c, r, { composer: bufferFrom('/') });
    const composer = bufferFrom('/');
    return {
      ...base,
      mode: {
        ...sessionState(c, r, { composer }).mode,
        assist: {
          completion: {
            kind: 'slash',
            items: slashCompletions('/', { agent: 'claude' }) ?? [],
            selected: 0,
          },
          history: null,
          search: null,
          images: [],
          error: null,
        },
      },
    } as AppState;
  },
  'the help overlay, scrolled': (c, r) => listState(c, r, { popup: { kind: 'help', scroll: 4 } }),
  'a notice on the footer': (c, r) =>
    listState(c, r, { notice: { level: 'error', text: 'Merge failed: '.repeat(20) } }),
};

function expectFullScreen(frame: Frame, columns: number, rows: number): void {
  expect(frame.lines).toHaveLength(rows);
  const tooWide = frame.lines.filter((line) => cellWidth(line) > columns);
  expect(tooWide).toEqual([]);
  // Nothing above spilled over the footer: its last line is still where the work happens.
  expect(frame.lines.at(-1)).toMatch(/^ (\/home\/dev\/demo|\/wt\/)/);
}

describe('the full-screen rule', () => {
  describe.each(SIZES)('at %i×%i', (columns, rows) => {
    it.each(Object.keys(SCREENS))(
      'draws %s exactly as tall as the terminal and no wider',
      (name) => {
        const frame = renderFrame(SCREENS[name]?.(columns, rows) ?? appState());
        expectFullScreen(frame, columns, rows);
      },
    );
  });
});

describe('the sessions list', () => {
  it.each(SIZES)('keeps the selected session on screen at %i×%i', (columns, rows) => {
    const frame = renderFrame(listState(columns, rows));
    const selected = frame.lines.find((line) => line.startsWith('▶'));
    expect(selected).toContain('T07');
  });

  it('shows every session and its group when they fit', () => {
    const frame = renderFrame(listState(120, 40, { sessions: sessions.slice(0, 10) }));
    for (const session of sessions.slice(0, 10))
      expect(frame.text).toContain(session.title.slice(0, 20));
    expect(frame.text).toMatch(/MERGE QUEUE \(2\)[\s\S]*ACTIVE \(6\)[\s\S]*ARCHIVE \(2\)/);
  });

  it('shows the list keys and the project folder in the footer', () => {
    const frame = renderFrame(listState(120, 40), { home: '/home/dev' });
    const hints = availableBindings('sessions').filter((row) => row.hint);
    for (const row of hints)
      expect(frame.lines.at(-2)).toContain(`${displayKey(row.keys[0] ?? '')} ${row.hint ?? ''}`);
    expect(frame.lines.at(-1)).toContain('~/demo');
  });

  it('invites to start a session when there is none', () => {
    const frame = renderFrame(appState({ columns: 60, rows: 20 }));
    expect(frame.text).toContain('No sessions yet.');
  });
});

describe('the session view', () => {
  it('shows the last lines of a long transcript above the footer', () => {
    const frame = renderFrame(sessionState(100, 30));
    const body = frame.lines.filter((line) => /entry \d+/.test(line)).map((line) => line.trim());
    expect(body.at(-1)).toBe('entry 2999');
    expect(body).not.toContain('entry 0');
    // Each notice is followed by a blank line, so the shown entries are consecutive from the end.
    expect(body).toEqual(
      Array.from({ length: body.length }, (_, i) => `entry ${3000 - body.length + i}`),
    );
    expect(frame.lines.at(-1)).toContain('/wt/');
  });

  it('shows the session keys its status allows in the footer, as many as fit, help always', () => {
    const frame = renderFrame(sessionState(160, 30));
    const session = sessions[0];
    const footer = (frame.lines.at(-2) ?? '').trim();
    const hints = availableBindings('session', session)
      .filter((r) => r.hint)
      .map((row) => `${displayKey(row.keys[0] ?? '')} ${row.hint ?? ''}`);
    const shown = footer.split(' · ');
    // Table order, nothing that is not allowed, and the last ones (help) never dropped.
    expect(shown.every((hint) => hints.includes(hint))).toBe(true);
    expect(shown.map((hint) => hints.indexOf(hint))).toEqual(
      [...shown.map((hint) => hints.indexOf(hint))].sort((a, b) => a - b),
    );
    expect(shown.at(-1)).toBe(hints.at(-1));
    expect(shown[0]).toBe(hints[0]);
    // A hint is left out only when it would not fit.
    const next = hints.find((hint) => !shown.includes(hint));
    if (next) expect(` ${[...shown, next].join(' · ')}`.length).toBeGreaterThan(158);
  });

  it('shows earlier lines when scrolled back', () => {
    const frame = renderFrame(sessionState(100, 30, { scrollBack: 1000 }));
    const body = frame.lines.filter((line) => /entry \d+/.test(line)).map((line) => line.trim());
    expect(body.at(-1)).toBe('entry 2499');
  });

  it('shows the composer with the typed prompt', () => {
    const frame = renderFrame(sessionState(100, 30, { composer: bufferFrom('please add tests') }));
    expect(frame.text).toContain('please add tests');
    expect(frame.text).toContain('Reply');
  });
});

describe('overlays', () => {
  it('lists the keys of the page under the help overlay', () => {
    const frame = renderFrame(listState(120, 40, { popup: { kind: 'help' } }));
    expect(frame.text).toContain('Keys');
    for (const row of availableBindings('sessions')) expect(frame.text).toContain(displayKeys(row));
    expect(frame.text).toContain(availableBindings('sessions')[0]?.help);
    expect(frame.text).toContain('Esc or ? closes');
  });

  it('draws a confirmation at the bottom, above the footer that shows its keys, leaving the list above visible', () => {
    const frame = renderFrame(
      listState(120, 40, {
        popup: {
          kind: 'confirm',
          title: 'Quit Grove?',
          lines: ['Running agents are stopped.'],
          intent: { kind: 'quit' },
          yes: false,
        },
      }),
    );
    const top = frame.lines.findIndex((line) => line.includes('╭'));
    const bottom = frame.lines.findIndex((line) => line.includes('╰'));
    expect(frame.lines[top + 1]).toContain('Quit Grove?');
    expect(frame.text).toContain(' Yes    No ');
    // It ends just above the footer; the rows above it still show sessions.
    expect(bottom).toBe(frame.lines.length - 3);
    expect(frame.lines.slice(3, top).some((line) => /T\d\d fix/.test(line))).toBe(true);
    // The footer offers the question's keys, not the list's it would not answer.
    expect(frame.lines.at(-2)).toContain('y yes · n no');
    expect(frame.lines.at(-2)).not.toContain('? help');
  });

  it('hides the page cells under the popup', () => {
    const frame = renderFrame(
      listState(120, 40, {
        popup: {
          kind: 'confirm',
          title: 'Sure?',
          lines: ['x'],
          intent: { kind: 'quit' },
          yes: false,
        },
      }),
    );
    const top = frame.lines.findIndex((line) => line.includes('╭'));
    const bottom = frame.lines.findIndex((line) => line.includes('╰'));
    const inside = frame.lines
      .slice(top + 1, bottom)
      .map((line) => line.slice(line.indexOf('│') + 1, line.lastIndexOf('│')));
    expect(inside.filter((cells) => /T\d\d fix|claude\/sonnet/.test(cells))).toEqual([]);
  });
});

describe('a session row', () => {
  const row = makeSession('Review', {
    id: 'r1',
    title: 'Rework the session list so it degrades gracefully',
    addedLines: 120,
    deletedLines: 7,
    inputTokens: 12_300,
    outputTokens: 700,
  });
  const rowState = (columns: number): AppState =>
    appState({ columns, rows: 20, sessions: [row], selectedSessionId: 'r1' });
  const line = (frame: Frame): string => frame.lines.find((l) => l.includes('Rework')) ?? '';

  it('shows +/-, tokens, agent/model, status and time on a wide screen', () => {
    const frame = renderFrame(rowState(120));
    expect(line(frame)).toContain('+120/-7');
    expect(line(frame)).toContain('13.0k');
    expect(line(frame)).toContain('claude/');
    expect(line(frame)).toContain('Review');
    expect(frame.text).toMatch(/Session +\+\/- +Tokens +Agent\/model +Status +Timer/);
  });

  it('drops columns at 60 columns and keeps the title readable', () => {
    const frame = renderFrame(rowState(60));
    expect(line(frame)).toContain('Rework the session list');
    expect(line(frame)).toContain('Review');
    expect(line(frame)).not.toContain('claude/');
    expect(line(frame)).not.toContain('13.0k');
    expect(cellWidth(line(frame))).toBeLessThanOrEqual(60);
  });
});

describe('the help overlay on a short terminal', () => {
  it('shows where it is in the keys and how to scroll', () => {
    const frame = renderFrame(listState(60, 14, { popup: { kind: 'help', scroll: 2 } }));
    expect(frame.text).toMatch(/3–\d+ of \d+ · j\/k scroll/);
    expect(frame.text).not.toContain(availableBindings('sessions')[0]?.help.slice(0, 20));
  });
});

describe('the composer', () => {
  it('lists the slash commands with their descriptions under the prompt', () => {
    const state = SCREENS['the composer with a slash picker']?.(100, 30) ?? appState();
    const frame = renderFrame(state);
    expect(frame.text).toContain('/model');
    expect(frame.text).toContain("Change this session's model");
    expect(frame.text).toContain('/clear');
  });
});
