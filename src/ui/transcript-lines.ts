import { sanitizeText } from '../domain/sanitize.js';
import type { TranscriptEntry } from '../domain/transcript.js';
import { LruCache } from './render-cache.js';
import { truncate, wrapPlain } from './text.js';
import { TRANSCRIPTS_HELD } from '../app/transcript-hold.js';

export type LineStyle =
  'prompt' | 'answer' | 'notice' | 'error' | 'output' | 'summary' | 'muted' | 'heading';

export interface StyledLine {
  readonly text: string;
  readonly style: LineStyle;
}

/** Transcript rows never change once written, so (session, position, width) is a safe key. */
const entryCache = new LruCache<readonly StyledLine[]>(4000);

export type AnswerRenderer = (markdown: string, width: number) => string[];

let answerRenderer: AnswerRenderer = (text, width) => wrapPlain(text, width);
let loadAnswerRenderer: (() => AnswerRenderer | undefined) | undefined;

/**
 * Gives the loader of the markdown renderer, called (once) just before an
 * answer is first laid out: a Grove that only shows the list never loads it,
 * and no transcript is ever measured twice (plain, then as markdown). When
 * the loader gives nothing, answers stay plain text.
 */
export function whenAnswerNeeded(load: () => AnswerRenderer | undefined): void {
  loadAnswerRenderer = load;
}

/** Loads the answer renderer now if it is still to be loaded. */
function answerRendererReady(): void {
  const load = loadAnswerRenderer;
  if (load === undefined) return;
  loadAnswerRenderer = undefined;
  const renderer = load();
  if (renderer !== undefined) setAnswerRenderer(renderer);
}

/**
 * Lets the markdown renderer be plugged in (it is loaded lazily for fast
 * start-up). Layouts made by the previous renderer are dropped, so answers
 * laid out as plain text before markdown arrived are rendered again.
 */
export function setAnswerRenderer(renderer: AnswerRenderer): void {
  answerRenderer = renderer;
  loadAnswerRenderer = undefined;
  rendererGeneration++;
  entryCache.clear();
}

/**
 * Markdown an agent wrote outside the transcript (the focused review), laid
 * out as answers are: rendered once the markdown renderer is loaded, which
 * caches it by text and width.
 */
export function markdownLines(markdown: string, width: number): StyledLine[] {
  answerRendererReady();
  return answerRenderer(sanitizeText(markdown), width).map((text) => ({
    text,
    style: 'answer' as const,
  }));
}

/** One line cut to `width` cells (a folded tool call never wraps). */
function fitLine(text: string, width: number): string {
  return truncate(text, Math.max(1, width));
}

function noticeStyle(content: string): LineStyle {
  return /^\[(\w+ )?(Error|Warning)\]|^\[[^\]]*Error\]/.test(content) ? 'error' : 'notice';
}

/**
 * The lines of one entry. A tool call is one line ("▸ Ran: npm test (exit 0)")
 * unless `expandTools`, when its detail follows, indented.
 */
export function entryLines(
  sessionId: string,
  entry: TranscriptEntry,
  width: number,
  expandTools = false,
): readonly StyledLine[] {
  if (entry.kind === 'assistant_answer') answerRendererReady();
  const key = `${sessionId}:${entry.position}:${width}${entry.kind === 'tool' && expandTools ? ':open' : ''}`;
  const cached = entryCache.get(key);
  if (cached) return cached;
  let lines: StyledLine[];
  // Entries are stored sanitized; rows from before that was so are cleaned
  // here, once per cached layout (the markdown renderer adds its own SGR after).
  const content = sanitizeText(entry.content);
  switch (entry.kind) {
    case 'user_prompt':
      lines = wrapPlain(content, width - 2).map((text, i) => ({
        text: `${i === 0 ? '› ' : '  '}${text}`,
        style: 'prompt' as const,
      }));
      break;
    case 'assistant_answer':
      lines = answerRenderer(content, width).map((text) => ({ text, style: 'answer' as const }));
      break;
    case 'notice': {
      const style = noticeStyle(content);
      lines = wrapPlain(content, width).map((text) => ({ text, style }));
      break;
    }
    case 'output':
      lines = wrapPlain(content, width).map((text) => ({ text, style: 'output' as const }));
      break;
    case 'tool': {
      const [summary = '', ...detail] = content.split('\n');
      const more = detail.some((line) => line.trim() !== '');
      const head = {
        text: fitLine(`${expandTools && more ? '▾' : '▸'} ${summary}`, width),
        style: 'output' as const,
      };
      lines =
        expandTools && more
          ? [
              head,
              ...wrapPlain(detail.join('\n'), Math.max(1, width - 4)).map((text) => ({
                text: `    ${text}`,
                style: 'muted' as const,
              })),
            ]
          : [head];
      break;
    }
    default:
      lines = [];
  }
  // Tool calls sit together, one line each: no gap after them.
  const withGap = entry.kind === 'tool' ? lines : [...lines, { text: '', style: 'muted' as const }];
  entryCache.set(key, withGap);
  return withGap;
}

/** All transcript lines, laid out once per entry and width (cached). */
export function transcriptLines(
  sessionId: string,
  entries: readonly TranscriptEntry[],
  width: number,
  expandTools = false,
): StyledLine[] {
  const out: StyledLine[] = [];
  for (const entry of entries)
    for (const line of entryLines(sessionId, entry, width, expandTools)) out.push(line);
  return out;
}

export interface LineWindow {
  readonly lines: readonly StyledLine[];
  readonly total: number;
  /** The scroll-back actually applied (clamped). */
  readonly scrollBack: number;
}

/**
 * Line counts of one session's entries at one width, so a frame lays out only
 * the entries that reach the window. `ends[i]` is the line just past entry i.
 * Valid while the width and the answer renderer stay the same; entries are
 * checked when the array changes (appends extend it, any other change
 * re-measures from the first entry that differs).
 */
interface HeightIndex {
  width: number;
  expandTools: boolean;
  generation: number;
  source: readonly TranscriptEntry[];
  measured: TranscriptEntry[];
  ends: number[];
}

const heightIndexes = new Map<string, HeightIndex>();
/** As many as the app holds transcripts: an index keeps its transcript's entries alive. */
const HEIGHT_INDEX_LIMIT = TRANSCRIPTS_HELD;
let rendererGeneration = 0;

function sameEntry(a: TranscriptEntry, b: TranscriptEntry): boolean {
  return a === b || (a.position === b.position && a.kind === b.kind && a.content === b.content);
}

function heightIndex(
  sessionId: string,
  entries: readonly TranscriptEntry[],
  width: number,
  expandTools: boolean,
): HeightIndex {
  // Before the generation is compared: an index is never built with the plain renderer just before markdown arrives.
  if (
    loadAnswerRenderer !== undefined &&
    entries.some((entry) => entry.kind === 'assistant_answer')
  )
    answerRendererReady();
  let index = heightIndexes.get(sessionId);
  if (
    index &&
    index.width === width &&
    index.expandTools === expandTools &&
    index.generation === rendererGeneration &&
    index.source === entries
  )
    return index;
  if (
    !index ||
    index.width !== width ||
    index.expandTools !== expandTools ||
    index.generation !== rendererGeneration
  ) {
    index = {
      width,
      expandTools,
      generation: rendererGeneration,
      source: entries,
      measured: [],
      ends: [],
    };
  }
  heightIndexes.delete(sessionId);
  heightIndexes.set(sessionId, index);
  if (heightIndexes.size > HEIGHT_INDEX_LIMIT) {
    const oldest = heightIndexes.keys().next().value;
    if (oldest !== undefined) heightIndexes.delete(oldest);
  }
  let valid = 0;
  const known = Math.min(index.measured.length, entries.length);
  while (valid < known && sameEntry(index.measured[valid]!, entries[valid]!)) valid++;
  index.measured.length = valid;
  index.ends.length = valid;
  let offset = valid > 0 ? index.ends[valid - 1]! : 0;
  for (let i = valid; i < entries.length; i++) {
    const entry = entries[i]!;
    offset += entryLines(sessionId, entry, width, expandTools).length;
    index.measured.push(entry);
    index.ends.push(offset);
  }
  index.source = entries;
  return index;
}

/** The first entry whose lines reach past `line` (binary search over `ends`). */
function entryAt(ends: readonly number[], line: number): number {
  let low = 0;
  let high = ends.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ends[mid]! > line) high = mid;
    else low = mid + 1;
  }
  return low;
}

/**
 * The `height` lines ending `scrollBack` lines above the bottom of
 * transcript + tail. Each entry's line count is kept per width, so only the
 * entries that reach the window are laid out (after the first measure).
 */
export function windowLines(
  sessionId: string,
  entries: readonly TranscriptEntry[],
  tail: readonly StyledLine[],
  width: number,
  height: number,
  scrollBack: number,
  expandTools = false,
): LineWindow {
  const { ends } = heightIndex(sessionId, entries, width, expandTools);
  const transcriptTotal = ends.length > 0 ? ends[ends.length - 1]! : 0;
  const total = transcriptTotal + tail.length;
  const back = Math.max(0, Math.min(scrollBack, total - height));
  const end = total - back;
  const start = Math.max(0, end - height);
  const picked: StyledLine[] = [];
  let offset = transcriptTotal;
  if (start < transcriptTotal) {
    const first = entryAt(ends, start);
    offset = first > 0 ? ends[first - 1]! : 0;
    for (let i = first; i < entries.length && offset < end; i++) {
      const lines = entryLines(sessionId, entries[i]!, width, expandTools);
      picked.push(
        ...lines.slice(Math.max(0, start - offset), Math.min(lines.length, end - offset)),
      );
      offset = ends[i]!;
    }
  }
  if (end > offset) picked.push(...tail.slice(Math.max(0, start - offset), end - offset));
  return { lines: picked, total, scrollBack: back };
}
