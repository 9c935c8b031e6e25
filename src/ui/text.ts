import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import { sanitizeLine, sanitizeText } from '../domain/sanitize.js';
import { LruCache } from './render-cache.js';

// These helpers are the last guard before text reaches Ink: whatever they get
// is sanitized (a no-op, without allocation, for clean text), so a line an
// app service composed from a file name or an old row cannot move the cursor.

/** One line of plain text: line breaks and tabs as spaces, controls as placeholders. */
function oneLine(text: string): string {
  return sanitizeLine(text.replace(/[\r\n\t]+/g, ' '));
}

/** SGR foreground codes of the named colours the theme uses (as chalk names them). */
const FOREGROUND: Readonly<Record<string, number>> = {
  black: 30,
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  white: 37,
  gray: 90,
  grey: 90,
  blackBright: 90,
  redBright: 91,
  greenBright: 92,
  yellowBright: 93,
  blueBright: 94,
  magentaBright: 95,
  cyanBright: 96,
  whiteBright: 97,
};

/**
 * One line of text in a theme colour (and bold), with the escape codes ink's
 * `<Text color bold>` would give it, for a line drawn as one Text instead of
 * a Text per piece (a list row: a dozen fewer components to render). The
 * text is sanitized first, so the only escapes are these. No colour (NO_COLOR,
 * or a name the table does not know): the text as it is.
 */
export function paint(text: string, color: string | undefined, bold = false): string {
  const safe = sanitizeLine(text);
  if (safe === '') return '';
  const code = color === undefined ? undefined : FOREGROUND[color];
  const coloured = code === undefined ? safe : `\u001b[${code}m${safe}\u001b[39m`;
  return bold ? `\u001b[1m${coloured}\u001b[22m` : coloured;
}

// Text is measured in terminal cells, here and nowhere else: a CJK
// character or an emoji takes two cells, a combining mark none, a ZWJ
// sequence or a flag is one cluster of two. Widths come from string-width
// (what ink measures with), so what Grove lays out is what ink draws.

/** Printable ASCII: one cell per code unit, no segmenting. */
const PLAIN_ASCII = /^[\u0020-\u007E]*$/;

/** Widths of recent short strings that are not plain ASCII (list titles are measured at every row). */
const widths = new LruCache<number>(2048);

/** Cells `text` takes in a terminal (escape sequences take none). */
export function cellWidth(text: string): number {
  if (PLAIN_ASCII.test(text)) return text.length;
  if (text.length > 256) return stringWidth(text);
  let width = widths.get(text);
  if (width === undefined) {
    width = stringWidth(text);
    widths.set(text, width);
  }
  return width;
}

let segmenter: Intl.Segmenter | undefined;
/** Widths of single grapheme clusters (few distinct ones: bounded by clearing). */
const clusterWidths = new Map<string, number>();

function clusterWidth(cluster: string): number {
  let width = clusterWidths.get(cluster);
  if (width === undefined) {
    width = stringWidth(cluster);
    if (clusterWidths.size > 8192) clusterWidths.clear();
    clusterWidths.set(cluster, width);
  }
  return width;
}

/** `text` as grapheme clusters (what a terminal draws as one character) and their widths. */
function clusters(text: string): { readonly parts: string[]; readonly widths: number[] } {
  const parts: string[] = [];
  const sizes: number[] = [];
  if (PLAIN_ASCII.test(text)) {
    for (let i = 0; i < text.length; i++) {
      parts.push(text[i]!);
      sizes.push(1);
    }
    return { parts, widths: sizes };
  }
  segmenter ??= new Intl.Segmenter();
  for (const { segment } of segmenter.segment(text)) {
    parts.push(segment);
    sizes.push(clusterWidth(segment));
  }
  return { parts, widths: sizes };
}

/** The longest start of `text` that takes at most `width` cells, and the cells it takes. */
function head(text: string, width: number): { readonly text: string; readonly width: number } {
  if (PLAIN_ASCII.test(text)) {
    const cut = text.slice(0, Math.max(0, width));
    return { text: cut, width: cut.length };
  }
  segmenter ??= new Intl.Segmenter();
  let used = 0;
  let end = 0;
  // Only as far as the width goes: a long title is not segmented to its end.
  for (const { segment, index } of segmenter.segment(text)) {
    const w = clusterWidth(segment);
    if (used + w > width) break;
    used += w;
    end = index + segment.length;
  }
  return { text: text.slice(0, end), width: used };
}

/**
 * Fits text into exactly `width` cells (truncating with …, padding with
 * spaces). A wide character that would straddle the edge goes whole, and
 * its cell becomes a space.
 */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  const line = oneLine(text);
  const w = cellWidth(line);
  if (w <= width) return line + ' '.repeat(width - w);
  if (PLAIN_ASCII.test(line)) return line.slice(0, width - 1) + '…';
  // Cut titles are cut again at every row drawn, and segmenting a title is not
  // free (docs/performance.md).
  const key = `${width}\u0000${line}`;
  let cut = fitted.get(key);
  if (cut === undefined) {
    const kept = head(line, width - 1);
    cut = kept.text + '…' + ' '.repeat(width - 1 - kept.width);
    fitted.set(key, cut);
  }
  return cut;
}

/** Recent fits of text that is not plain ASCII and had to be cut. */
const fitted = new LruCache<string>(1024);

/** Text cut to at most `width` cells, with … where it was cut (not padded). */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  const line = oneLine(text);
  if (cellWidth(line) <= width) return line;
  return fit(line, width).trimEnd();
}

/**
 * The cells from `start` (inclusive) to `end` (exclusive) of one line of
 * plain text. A wide character cut by either edge leaves spaces in its
 * cells inside, so what follows stays in its column.
 */
export function sliceCells(text: string, start: number, end: number): string {
  if (PLAIN_ASCII.test(text)) return text.slice(Math.max(0, start), Math.max(0, end));
  const { parts, widths: sizes } = clusters(text);
  let at = 0;
  let out = '';
  for (let i = 0; i < parts.length && at < end; i++) {
    const w = sizes[i]!;
    if (at >= start && at + w <= end) out += parts[i]!;
    else if (at + w > start) out += ' '.repeat(Math.min(end, at + w) - Math.max(start, at));
    at += w;
  }
  return out;
}

/** One line of plain text cut into pieces of at most `width` cells, at any character (the diff's wrap). */
export function chunkCells(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const chunks: string[] = [];
  if (PLAIN_ASCII.test(text)) {
    for (let at = 0; at < text.length; at += w) chunks.push(text.slice(at, at + w));
  } else {
    const { parts, widths: sizes } = clusters(text);
    let chunk = '';
    let used = 0;
    for (let i = 0; i < parts.length; i++) {
      const cw = sizes[i]!;
      if (used + cw > w && used > 0) {
        chunks.push(chunk);
        chunk = '';
        used = 0;
      }
      chunk += parts[i]!;
      used += cw;
    }
    if (chunk !== '') chunks.push(chunk);
  }
  if (chunks.length === 0) chunks.push('');
  return chunks;
}

/**
 * Hard-wraps plain text to `width` cells, keeping words together where
 * possible (text without spaces, as Chinese or Japanese is written, breaks
 * between any two characters). Nothing is lost: joining the lines gives
 * the text back, but for the one space dropped at each break.
 */
export function wrapPlain(text: string, width: number): string[] {
  const out: string[] = [];
  const w = Math.max(1, width);
  for (const raw of sanitizeText(text).split('\n')) {
    const line = raw.replace(/\t/g, '    ');
    if (PLAIN_ASCII.test(line)) wrapAscii(line, w, out);
    else if (cellWidth(line) <= w) out.push(line);
    else wrapClusters(line, w, out);
  }
  return out;
}

function wrapAscii(line: string, w: number, out: string[]): void {
  let rest = line;
  while (rest.length > w) {
    let cut = rest.lastIndexOf(' ', w);
    if (cut <= 0) cut = w;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^ /, '');
  }
  out.push(rest);
}

/** wrapAscii, cluster by cluster and cell by cell. */
function wrapClusters(line: string, w: number, out: string[]): void {
  const { parts, widths: sizes } = clusters(line);
  let from = 0;
  for (;;) {
    // The clusters that fit from `from`: [from, fits).
    let used = 0;
    let fits = from;
    while (fits < parts.length && used + sizes[fits]! <= w) used += sizes[fits++]!;
    if (fits >= parts.length) break;
    // A break at the last space that fits, or at the space just past the edge.
    let cut = -1;
    for (let i = fits; i > from; i--) {
      if (parts[i] === ' ') {
        cut = i;
        break;
      }
    }
    if (cut <= from) cut = Math.max(fits, from + 1);
    out.push(parts.slice(from, cut).join(''));
    from = parts[cut] === ' ' ? cut + 1 : cut;
  }
  out.push(parts.slice(from).join(''));
}

/**
 * One line of styled text (SGR codes, as the markdown renderer writes)
 * wrapped to `width` cells, with the codes carried over each break. The
 * lines after the first keep the first's indent and list bullet, so a long
 * list item or a quoted paragraph hangs under its text.
 */
export function wrapStyled(line: string, width: number): string[] {
  const w = Math.max(1, width);
  if (cellWidth(line) <= w) return [line];
  const plain = line.replace(SGR, '');
  // The indent is spaces and an ASCII or • bullet: one cell per code unit.
  const indent = /^ *(?:(?:[*\u2022+-]|\d+\.) +)?/.exec(plain)?.[0].length ?? 0;
  // Without an indent, the spaces at each break go; with one too wide to hang, they stay.
  if (indent === 0 || indent * 2 > w)
    return wrapAnsi(line, w, { hard: true, trim: indent === 0 }).split('\n');
  const [before, after] = splitVisible(line, indent);
  return wrapAnsi(after, w - indent, { hard: true, trim: true })
    .split('\n')
    .map((piece, i) => (i === 0 ? before : ' '.repeat(indent)) + piece);
}

/** Select Graphic Rendition (CSI … m), the only sequence the markdown renderer writes. */
// eslint-disable-next-line no-control-regex -- the point is to find escape sequences
const SGR = /\u001b\[[0-9;]*m/g;
// eslint-disable-next-line no-control-regex -- the point is to find escape sequences
const SGR_AT_START = /^\u001b\[[0-9;]*m/;

/** `line` cut after its first `count` visible code units; the codes before the cut stay with the head and are opened again in the rest. */
function splitVisible(line: string, count: number): [string, string] {
  let codes = '';
  let left = count;
  let i = 0;
  while (i < line.length && left > 0) {
    const code = line[i] === '\u001b' ? SGR_AT_START.exec(line.slice(i))?.[0] : undefined;
    if (code !== undefined) {
      codes += code;
      i += code.length;
    } else {
      i++;
      left--;
    }
  }
  return [line.slice(0, i), codes + line.slice(i)];
}

/** The window of `total` rows to show so that `selected` stays visible. */
export function visibleWindow(total: number, height: number, selected: number): [number, number] {
  if (total <= height) return [0, total];
  const half = Math.floor(height / 2);
  const start = Math.min(Math.max(0, selected - half), total - height);
  return [start, start + height];
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function spinner(now: number): string {
  return SPINNER[Math.floor(now / 100) % SPINNER.length] ?? '·';
}
