// Text is measured in terminal cells: a CJK character or an emoji takes two,
// a combining mark none, a ZWJ sequence or a flag is one character of two.
// Each screen is rendered with Grove's real components and every row is
// measured with string-width (what the terminal and ink go by).
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffMode, type AppState, type DiffFileView } from '../../src/app/state.js';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import { renderMarkdown } from '../../src/ui/markdown.js';
import { fit, truncate, wrapPlain } from '../../src/ui/text.js';
import { setAnswerRenderer } from '../../src/ui/transcript-lines.js';
import { appState, renderFrame, type Frame } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

const CJK = '修复登录页面的错误提示并在密码错误三次以后锁定账户十五分钟';
const FAMILY = '👨‍👩‍👧‍👦';
const FLAG = '🇯🇵';
const COMBINING = 'Cafe\u0301 re\u0301sume\u0301 na\u0308ive';
const FULL_WIDTH = '全角：「テスト」、（確認）！';

const WIDTHS = [80, 120] as const;

/** No line of the frame is wider than the terminal. */
function expectWithin(frame: Frame, columns: number): void {
  const wide = frame.lines.filter((line) => stringWidth(line) > columns);
  expect(wide).toEqual([]);
}

/** The characters a terminal draws (grapheme clusters), spaces left out. */
const characters = (text: string): string[] =>
  Array.from(new Intl.Segmenter().segment(text), (s) => s.segment).filter((s) => s.trim() !== '');

/** The frame's text without any whitespace (wrapping only moves text between lines). */
const compact = (text: string): string => text.replace(/\s+/g, '');

describe('the measuring functions', () => {
  const samples = [
    CJK,
    `${FAMILY}${FAMILY} family ${FLAG}${FLAG} flags`,
    COMBINING,
    FULL_WIDTH,
    `ascii ${CJK} ${FAMILY} ${COMBINING}`,
  ];

  it.each(samples)('fit gives exactly the width asked for: %s', (text) => {
    for (const width of [1, 2, 3, 7, 10, 11, 25, 60])
      expect(stringWidth(fit(text, width))).toBe(width);
  });

  it.each(samples)('truncate gives at most the width asked for: %s', (text) => {
    for (const width of [1, 2, 3, 7, 10, 11, 25]) {
      const cut = truncate(text, width);
      expect(stringWidth(cut)).toBeLessThanOrEqual(width);
      if (stringWidth(text) > width) expect(cut.endsWith('…')).toBe(true);
    }
  });

  it.each(samples)('wrapPlain keeps every character within the width: %s', (text) => {
    for (const width of [2, 5, 9, 20]) {
      const lines = wrapPlain(text, width);
      for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(width);
      expect(compact(lines.join(''))).toBe(compact(text));
      // No character is split between two lines (a ZWJ family, a flag, a letter and its mark).
      expect(lines.flatMap(characters)).toEqual(characters(text));
    }
  });
});

describe('the sessions list with wide titles', () => {
  const titles = [
    'Fix the login page',
    CJK,
    '登录页面',
    `${FAMILY} family and ${FLAG} flag in a title long enough to be cut somewhere`,
    `${COMBINING} with combining marks`,
    FULL_WIDTH,
  ];
  const sessions = titles.map((title, i) =>
    makeSession('Review', { id: `w${i}`, title, addedLines: 12, deletedLines: 3 }),
  );

  it.each(WIDTHS)('lines up every column at %i columns', (columns) => {
    const frame = renderFrame(appState({ columns, rows: 20, sessions, selectedSessionId: 'w0' }));
    expectWithin(frame, columns);
    const header = frame.lines.find((line) => line.includes('Status')) ?? '';
    const statusCell = stringWidth(header.slice(0, header.indexOf('Status')));
    const timerCell = stringWidth(header.slice(0, header.indexOf('Timer')));
    const rows = frame.lines.filter((line) => line.includes('Review') && line.includes('+12/-3'));
    expect(rows).toHaveLength(titles.length);
    for (const row of rows) {
      expect(stringWidth(row.slice(0, row.lastIndexOf('Review'))), row).toBe(statusCell);
      expect(stringWidth(row.slice(0, row.lastIndexOf('0s'))), row).toBe(timerCell);
      expect(stringWidth(row.slice(0, row.indexOf('+12/-3'))), row).toBe(
        stringWidth(header.slice(0, header.indexOf('+/-'))),
      );
    }
  });
});

function sessionWith(entries: TranscriptEntry[], columns: number): AppState {
  return appState({
    columns,
    rows: 30,
    sessions: [makeSession('Review', { id: 'v' })],
    transcripts: { v: entries },
    mode: { kind: 'session', sessionId: 'v', scrollBack: 0, composer: null, question: null },
  });
}

const entry = (kind: TranscriptEntry['kind'], content: string): TranscriptEntry => ({
  position: 0,
  kind,
  content,
  createdAt: 0,
});

describe('the session view with wide text', () => {
  const prompt = `${CJK}${FULL_WIDTH}${CJK} ${FAMILY}${FLAG} ${COMBINING}`;

  it.each(WIDTHS)('wraps a long Chinese prompt whole at %i columns', (columns) => {
    const frame = renderFrame(sessionWith([entry('user_prompt', prompt)], columns));
    expectWithin(frame, columns);
    expect(compact(frame.text)).toContain(compact(prompt));
  });

  describe('a markdown answer', () => {
    beforeAll(() => setAnswerRenderer(renderMarkdown));
    afterAll(() => setAnswerRenderer((text, width) => wrapPlain(text, width)));
    const paragraph = `${CJK}，${FULL_WIDTH}${CJK}。${FAMILY}${FLAG}${CJK}`;
    const answer = `## ${CJK}\n\n${paragraph}\n\n- ${CJK}${CJK}${CJK}\n- ${COMBINING}`;

    it.each(WIDTHS)('wraps Chinese paragraphs and list items whole at %i columns', (columns) => {
      const frame = renderFrame(sessionWith([entry('assistant_answer', answer)], columns));
      expectWithin(frame, columns);
      const text = compact(frame.text);
      expect(text).toContain(compact(paragraph));
      expect(text).toContain(compact(`${CJK}${CJK}${CJK}`));
      expect(text).toContain(compact(COMBINING));
    });

    it('hangs a wrapped list item under its text', () => {
      const lines = renderMarkdown(`- ${CJK}${CJK}${CJK}`, 40);
      expect(lines.length).toBeGreaterThan(1);
      const first = stripVTControlCharacters(lines[0]!);
      const indent = /^\s*\S\s+/.exec(first)?.[0].length ?? 0;
      for (const line of lines.slice(1))
        expect(stripVTControlCharacters(line).startsWith(' '.repeat(indent))).toBe(true);
    });
  });
});

describe('a popup with wide text', () => {
  const lines = [`${CJK}${FULL_WIDTH}${CJK}`, `${FAMILY}${FLAG} ${COMBINING} ${CJK}`];

  it.each(WIDTHS)('wraps it whole inside its border at %i columns', (columns) => {
    const frame = renderFrame(
      appState({
        columns,
        rows: 30,
        popup: { kind: 'info', title: FULL_WIDTH, lines, busy: false },
      }),
    );
    expectWithin(frame, columns);
    const top = frame.lines.findIndex((line) => line.includes('╭'));
    const bottom = frame.lines.findIndex((line) => line.includes('╰'));
    const inside = frame.lines.slice(top + 1, bottom);
    // The right border is in the same cell on every line.
    const edges = new Set(inside.map((line) => stringWidth(line.slice(0, line.lastIndexOf('│')))));
    expect(edges.size).toBe(1);
    const text = compact(
      inside.map((line) => line.slice(line.indexOf('│') + 1, line.lastIndexOf('│'))).join(''),
    );
    for (const line of lines) expect(text).toContain(compact(line));
    expect(text).toContain(FULL_WIDTH);
  });
});

describe('the diff view with wide text', () => {
  const added = `${CJK}${FULL_WIDTH}${CJK}${FAMILY}${FLAG}${COMBINING}${CJK}${CJK}`;
  const files: DiffFileView[] = [
    {
      path: 'src/文案.ts',
      status: 'M',
      added: 1,
      deleted: 0,
      binary: false,
      patch: ['@@ -1,1 +1,2 @@', ' const a = 1;', `+const 文案 = '${added}';`].join('\n'),
      summarized: null,
    },
  ];
  const state = (columns: number, wrap: boolean): AppState =>
    appState({
      columns,
      rows: 24,
      sessions: [makeSession('Review', { id: 'd' })],
      mode: diffMode('d', { wrap }),
      diff: { sessionId: 'd', loading: false, error: null, files, added: 1, deleted: 0 },
    });

  it.each(WIDTHS)('wraps a line whole at %i columns', (columns) => {
    const frame = renderFrame(state(columns, true));
    expectWithin(frame, columns);
    expect(compact(frame.text)).toContain(compact(added));
  });

  it.each(WIDTHS)('marks a line that goes past the edge at %i columns', (columns) => {
    const frame = renderFrame(state(columns, false));
    expectWithin(frame, columns);
    const row = frame.lines.find((line) => line.includes('const 文案')) ?? '';
    expect(row.trimEnd().endsWith('›')).toBe(true);
  });
});
