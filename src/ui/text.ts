import { sanitizeLine, sanitizeText } from '../domain/sanitize.js';

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

/** Fits text into exactly `width` cells (truncating with …, padding with spaces). */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = Array.from(oneLine(text));
  if (chars.length > width) return chars.slice(0, Math.max(0, width - 1)).join('') + '…';
  return chars.join('') + ' '.repeat(width - chars.length);
}

export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = Array.from(oneLine(text));
  return chars.length > width
    ? chars.slice(0, Math.max(0, width - 1)).join('') + '…'
    : chars.join('');
}

/** Hard-wraps plain text to `width`, keeping words together where possible. */
export function wrapPlain(text: string, width: number): string[] {
  const out: string[] = [];
  const w = Math.max(1, width);
  for (const raw of sanitizeText(text).split('\n')) {
    const line = raw.replace(/\t/g, '    ');
    if (line.length <= w) {
      out.push(line);
      continue;
    }
    let rest = line;
    while (rest.length > w) {
      let cut = rest.lastIndexOf(' ', w);
      if (cut <= 0) cut = w;
      out.push(rest.slice(0, cut));
      rest = rest.slice(cut).replace(/^ /, '');
    }
    out.push(rest);
  }
  return out;
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
