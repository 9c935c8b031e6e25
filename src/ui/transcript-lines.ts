import type { TranscriptEntry } from '../domain/transcript.js';
import { LruCache } from './render-cache.js';
import { wrapPlain } from './text.js';

export type LineStyle = 'prompt' | 'answer' | 'notice' | 'error' | 'output' | 'summary' | 'muted' | 'heading';

export interface StyledLine {
  readonly text: string;
  readonly style: LineStyle;
}

/** Transcript rows never change once written, so (session, position, width) is a safe key. */
const entryCache = new LruCache<readonly StyledLine[]>(4000);

export type AnswerRenderer = (markdown: string, width: number) => string[];

let answerRenderer: AnswerRenderer = (text, width) => wrapPlain(text, width);

/** Lets the markdown renderer be plugged in (it is loaded lazily for fast start-up). */
export function setAnswerRenderer(renderer: AnswerRenderer): void {
  answerRenderer = renderer;
}

function noticeStyle(content: string): LineStyle {
  return /^\[(\w+ )?(Error|Warning)\]|^\[[^\]]*Error\]/.test(content) ? 'error' : 'notice';
}

export function entryLines(sessionId: string, entry: TranscriptEntry, width: number): readonly StyledLine[] {
  const key = `${sessionId}:${entry.position}:${width}`;
  const cached = entryCache.get(key);
  if (cached) return cached;
  let lines: StyledLine[];
  switch (entry.kind) {
    case 'user_prompt':
      lines = wrapPlain(entry.content, width - 2).map((text, i) => ({
        text: `${i === 0 ? '› ' : '  '}${text}`,
        style: 'prompt' as const,
      }));
      break;
    case 'assistant_answer':
      lines = answerRenderer(entry.content, width).map((text) => ({ text, style: 'answer' as const }));
      break;
    case 'notice': {
      const style = noticeStyle(entry.content);
      lines = wrapPlain(entry.content, width).map((text) => ({ text, style }));
      break;
    }
    case 'output':
      lines = wrapPlain(entry.content, width).map((text) => ({ text, style: 'output' as const }));
      break;
    default:
      lines = [];
  }
  const withGap = [...lines, { text: '', style: 'muted' as const }];
  entryCache.set(key, withGap);
  return withGap;
}

/** All transcript lines, laid out once per entry and width (cached). */
export function transcriptLines(
  sessionId: string,
  entries: readonly TranscriptEntry[],
  width: number,
): StyledLine[] {
  const out: StyledLine[] = [];
  for (const entry of entries) for (const line of entryLines(sessionId, entry, width)) out.push(line);
  return out;
}

export interface LineWindow {
  readonly lines: readonly StyledLine[];
  readonly total: number;
  /** The scroll-back actually applied (clamped). */
  readonly scrollBack: number;
}

/**
 * The `height` lines ending `scrollBack` lines above the bottom of
 * transcript + tail. Only entries that reach the window are collected.
 */
export function windowLines(
  sessionId: string,
  entries: readonly TranscriptEntry[],
  tail: readonly StyledLine[],
  width: number,
  height: number,
  scrollBack: number,
): LineWindow {
  const perEntry = entries.map((entry) => entryLines(sessionId, entry, width));
  const total = perEntry.reduce((sum, lines) => sum + lines.length, 0) + tail.length;
  const back = Math.max(0, Math.min(scrollBack, total - height));
  const end = total - back;
  const start = Math.max(0, end - height);
  const picked: StyledLine[] = [];
  let offset = 0;
  for (const lines of perEntry) {
    const next = offset + lines.length;
    if (next > start && offset < end) {
      picked.push(...lines.slice(Math.max(0, start - offset), Math.min(lines.length, end - offset)));
    }
    offset = next;
    if (offset >= end) break;
  }
  if (end > offset) picked.push(...tail.slice(Math.max(0, start - offset), end - offset));
  return { lines: picked, total, scrollBack: back };
}
