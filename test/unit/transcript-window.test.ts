import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import { sessionLayout, sessionPageHeight } from '../../src/ui/session-layout.js';
import { setAnswerRenderer, windowLines, type StyledLine } from '../../src/ui/transcript-lines.js';
import { wrapPlain } from '../../src/ui/text.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// Transcript windowing: of a transcript of any length, the session view lays
// out and draws only the lines that fit, ending `scrollBack` lines above the bottom.

const ENTRIES = 500;
const LINES_PER_ENTRY = 99;

/** 500 outputs of 99 short lines, each followed by a blank line: 50,000 lines. */
const entries: TranscriptEntry[] = Array.from({ length: ENTRIES }, (_, e) => ({
  position: e,
  kind: 'output',
  content: Array.from({ length: LINES_PER_ENTRY }, (_, l) => `e${e} l${l}`).join('\n'),
  createdAt: 0,
}));

/** The same transcript as plain text, laid out independently of the code under test. */
const allLines: string[] = entries.flatMap((entry) => [...entry.content.split('\n'), '']);
const TOTAL = allLines.length;

const texts = (lines: readonly StyledLine[]): string[] => lines.map((line) => line.text);
const HEIGHT = 37;
const WIDTH = 80;

describe('transcript windowing', () => {
  it('has a 50,000-line fixture', () => {
    expect(TOTAL).toBe(50_000);
  });

  it.each([
    [0, 'the bottom'],
    [1, 'one line up'],
    [2, 'two lines up'],
    [12_345, 'the middle'],
    [TOTAL - HEIGHT, 'the top'],
  ])('windows to exactly the visible lines at scroll-back %i (%s)', (scrollBack) => {
    const view = windowLines('window-a', entries, [], WIDTH, HEIGHT, scrollBack);
    expect(view.total).toBe(TOTAL);
    expect(view.scrollBack).toBe(scrollBack);
    expect(texts(view.lines)).toEqual(
      allLines.slice(TOTAL - scrollBack - HEIGHT, TOTAL - scrollBack),
    );
  });

  it('clamps a scroll-back past the top to the first page', () => {
    const view = windowLines('window-a', entries, [], WIDTH, HEIGHT, Number.MAX_SAFE_INTEGER);
    expect(view.scrollBack).toBe(TOTAL - HEIGHT);
    expect(texts(view.lines)).toEqual(allLines.slice(0, HEIGHT));
  });

  it('shifts the window by exactly one line when scrolled by one', () => {
    const before = texts(windowLines('window-a', entries, [], WIDTH, HEIGHT, 500).lines);
    const after = texts(windowLines('window-a', entries, [], WIDTH, HEIGHT, 501).lines);
    expect(after.slice(1)).toEqual(before.slice(0, -1));
    expect(after[0]).toBe(allLines[TOTAL - 501 - HEIGHT]);
  });

  it('ends with the tail (summary, queued prompts, spinner) below the transcript', () => {
    const tail: StyledLine[] = [
      { text: '≡ queued › next', style: 'muted' },
      { text: '⠋ Thinking…', style: 'notice' },
    ];
    const bottom = texts(windowLines('window-a', entries, tail, WIDTH, HEIGHT, 0).lines);
    expect(bottom.slice(-2)).toEqual(['≡ queued › next', '⠋ Thinking…']);
    expect(bottom.slice(0, -2)).toEqual(allLines.slice(TOTAL - HEIGHT + 2));
    const upOne = texts(windowLines('window-a', entries, tail, WIDTH, HEIGHT, 1).lines);
    expect(upOne.at(-1)).toBe('≡ queued › next');
  });

  it('shows all of a transcript shorter than the window', () => {
    const short = entries.slice(0, 1);
    const view = windowLines('window-b', short, [], WIDTH, 200, 5);
    expect(view.scrollBack).toBe(0);
    expect(texts(view.lines)).toEqual(allLines.slice(0, LINES_PER_ENTRY + 1));
  });

  it('lays out each entry once: scrolling renders no answer again', () => {
    const answers: TranscriptEntry[] = Array.from({ length: 300 }, (_, i) => ({
      position: i,
      kind: 'assistant_answer',
      content: `answer ${i}\nmore`,
      createdAt: 0,
    }));
    let rendered = 0;
    setAnswerRenderer((text, width) => {
      rendered++;
      return wrapPlain(text, width);
    });
    windowLines('window-c', answers, [], WIDTH, HEIGHT, 0);
    const first = rendered;
    for (let back = 1; back <= 50; back++)
      windowLines('window-c', answers, [], WIDTH, HEIGHT, back);
    expect(first).toBe(300);
    expect(rendered).toBe(first);
  });

  it('lays out only the visible entries when a 50,000-line transcript scrolls by one line', () => {
    // 5,000 answers of 9 lines and a gap: more entries than the layout cache holds.
    const answers: TranscriptEntry[] = Array.from({ length: 5_000 }, (_, i) => ({
      position: i,
      kind: 'assistant_answer',
      content: Array.from({ length: 9 }, (_, l) => `a${i} l${l}`).join('\n'),
      createdAt: 0,
    }));
    let rendered = 0;
    setAnswerRenderer((text, width) => {
      rendered++;
      return wrapPlain(text, width);
    });
    windowLines('window-d', answers, [], WIDTH, HEIGHT, 20_000);
    rendered = 0;
    const view = windowLines('window-d', answers, [], WIDTH, HEIGHT, 20_001);
    expect(view.total).toBe(50_000);
    expect(view.lines[0]?.text).toBe(
      `a${Math.floor((50_000 - 20_001 - HEIGHT) / 10)} l${(50_000 - 20_001 - HEIGHT) % 10}`,
    );
    expect(rendered).toBeLessThanOrEqual(Math.ceil(HEIGHT / 10) + 1);
  });

  it('measures only the new entries when the transcript grows', () => {
    const grow = (count: number): TranscriptEntry[] =>
      Array.from({ length: count }, (_, i) => ({
        position: i,
        kind: 'assistant_answer',
        content: `answer ${i}`,
        createdAt: 0,
      }));
    let rendered = 0;
    setAnswerRenderer((text, width) => {
      rendered++;
      return wrapPlain(text, width);
    });
    windowLines('window-e', grow(5_000), [], WIDTH, HEIGHT, 4_000);
    rendered = 0;
    const view = windowLines('window-e', grow(5_003), [], WIDTH, HEIGHT, 4_000);
    expect(view.total).toBe(5_003 * 2);
    expect(texts(view.lines).at(-1)).toBe('');
    // Three new entries measured, plus the entries in the window (cache misses at most).
    expect(rendered).toBeLessThanOrEqual(3 + Math.ceil(HEIGHT / 2) + 1);
  });
});

describe('the session view window', () => {
  const session = makeSession('Review', { id: 'window-view' });

  function layout(rows: number, scrollBack: number) {
    const state = appState({
      columns: 100,
      rows,
      sessions: [session],
      transcripts: { [session.id]: entries },
      mode: { kind: 'session', sessionId: session.id, scrollBack, composer: null, question: null },
    });
    return sessionLayout(state, session, sessionPageHeight(state));
  }

  it.each([20, 40, 60])('fills exactly its body height on a %i-row screen', (rows) => {
    const { view, bodyHeight } = layout(rows, 0);
    expect(view.lines).toHaveLength(bodyHeight);
    expect(texts(view.lines)).toEqual(allLines.slice(TOTAL - bodyHeight));
  });

  it('moves by one line per scroll step', () => {
    const at = (back: number) => texts(layout(30, back).view.lines);
    expect(at(8).slice(1)).toEqual(at(7).slice(0, -1));
  });
});
