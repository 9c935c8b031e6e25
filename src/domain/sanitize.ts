// The one guard for untrusted text on its way to a terminal (agent output,
// file names and contents, git messages, GitHub text). Printable text,
// including every printable non-ASCII character, and tabs pass unchanged.
// Every other C0 control (CR, BS, BEL, DEL, …), every C1 control
// (U+0080–U+009F, e.g. 8-bit CSI U+009B and OSC U+009D) and every escape
// sequence (CSI with cursor moves, private modes and SGR colours; OSC 0/8/52
// ended by BEL or ST; DCS/SOS/PM/APC strings; two-character ESC sequences;
// a lone ESC) becomes a visible placeholder built from the Unicode control
// pictures, with the sequence's printable body kept (bounded), e.g.
// ESC ] 52;c;cm0gLXJm BEL  →  "␛]52;c;cm0gLXJm␇". Only Grove's renderer
// emits escape sequences. The bidirectional controls (U+061C, U+200E–U+200F,
// U+202A–U+202E, U+2066–U+2069) are shown as "\u202E" and the like: a
// terminal that reorders text by them would show a file name or a line of
// code in another order than it is (an "a\u202Eb.txt" that reads as
// "atxt.b", a comment that hides code, "Trojan Source").

/** How much of a sequence's body (parameters, OSC text) is shown before "…". */
export const MAX_SEQUENCE_BODY = 64;

const ESC = 0x1b;
const BEL = 0x07;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const DEL = 0x7f;
/** 8-bit String Terminator (U+009C). */
const ST8 = 0x9c;

/** The bidirectional formatting characters (Unicode's Bidi_Control property). */
const BIDI_CHARS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const BIDI = new RegExp(`[${BIDI_CHARS}]`, 'g');
/** Anything a terminal may act on or reorder by, besides tab (and newline for multi-line text). */
const UNSAFE_LINE = new RegExp(`[\\u0000-\\u0008\\u000a-\\u001f\\u007f-\\u009f${BIDI_CHARS}]`);
const UNSAFE_TEXT = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI_CHARS}]`);

/** "\u202E" for U+202E: the way JavaScript and JSON write it, so it reads as one character. */
function escapeBidi(text: string): string {
  return text.replace(
    BIDI,
    (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
}

function isControl(code: number): boolean {
  return code < 0x20 || (code >= DEL && code <= 0x9f);
}

/** The visible stand-in of one C0 control or DEL: ␀…␟, ␡. */
function picture(code: number): string {
  return code === DEL ? '\u2421' : String.fromCharCode(0x2400 + code);
}

/** A C1 control is the 7-bit sequence ESC (code − 0x40): U+009B is shown as "␛[". */
function c1Final(code: number): string {
  return String.fromCharCode(code - 0x40);
}

function bounded(body: string): string {
  return body.length > MAX_SEQUENCE_BODY ? `${body.slice(0, MAX_SEQUENCE_BODY)}…` : body;
}

interface Scanned {
  /** The placeholder text. */
  readonly shown: string;
  /** Index just after what was consumed. */
  readonly end: number;
}

/** CSI parameters (0x30–0x3F), intermediates (0x20–0x2F) and final byte (0x40–0x7E), from `at`. */
function scanCsi(text: string, at: number, intro: string): Scanned {
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x3f) {
      i++;
      continue;
    }
    // The final byte ends it; anything else (a control, non-ASCII) cuts it short.
    if (c >= 0x40 && c <= 0x7e)
      return { shown: `${intro}${bounded(text.slice(at, i))}${text[i] ?? ''}`, end: i + 1 };
    break;
  }
  return { shown: `${intro}${bounded(text.slice(at, i))}`, end: i };
}

/**
 * A control string (OSC, DCS, SOS, PM, APC) from `at`: printable text up to
 * BEL, ESC \ or the 8-bit ST. Unterminated (another control, or the end of
 * the text) it ends there, so the text after it stays visible.
 */
function scanString(text: string, at: number, intro: string): Scanned {
  let i = at;
  while (i < text.length && !isControl(text.charCodeAt(i))) i++;
  const body = `${intro}${bounded(text.slice(at, i))}`;
  const c = text.charCodeAt(i);
  if (c === BEL) return { shown: `${body}${picture(BEL)}`, end: i + 1 };
  if (c === ST8) return { shown: `${body}␛\\`, end: i + 1 };
  if (c === ESC && text[i + 1] === '\\') return { shown: `${body}␛\\`, end: i + 2 };
  return { shown: body, end: i };
}

/** The sequence introduced by ESC + `final` (or the C1 control equal to it) whose body starts at `at`. */
function scanIntroduced(text: string, at: number, final: string): Scanned {
  const intro = `␛${final}`;
  switch (final) {
    case '[':
      return scanCsi(text, at, intro);
    case ']':
    case 'P':
    case 'X':
    case '^':
    case '_':
      return scanString(text, at, intro);
    default:
      return { shown: intro, end: at };
  }
}

/** ESC at `at`: CSI, a control string, an nF/Fp/Fe/Fs sequence (ESC, intermediates, final), or ESC alone. */
function scanEscape(text: string, at: number): Scanned {
  let i = at + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x2f) {
      i++;
      continue;
    }
    if (c >= 0x30 && c <= 0x7e) {
      const final = text[i] ?? '';
      if (i === at + 1) return scanIntroduced(text, i + 1, final);
      return { shown: `␛${bounded(text.slice(at + 1, i))}${final}`, end: i + 1 };
    }
    break;
  }
  // No final byte: ESC and any intermediates as they are.
  return { shown: `␛${bounded(text.slice(at + 1, i))}`, end: i };
}

function sanitize(raw: string, keepNewlines: boolean): string {
  // First, so a bidi control inside an escape sequence's body is shown escaped too.
  const text = escapeBidi(raw);
  let out = '';
  let last = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (!isControl(c) || c === TAB || (keepNewlines && c === LF)) {
      i++;
      continue;
    }
    out += text.slice(last, i);
    let scanned: Scanned;
    if (c === ESC) scanned = scanEscape(text, i);
    else if (c >= 0x80) scanned = scanIntroduced(text, i + 1, c1Final(c));
    // CRLF in multi-line text is a line ending, not a cursor move.
    else if (c === CR && keepNewlines && text.charCodeAt(i + 1) === LF)
      scanned = { shown: '', end: i + 1 };
    else if (c === LF) scanned = { shown: '\u2424', end: i + 1 };
    else scanned = { shown: picture(c), end: i + 1 };
    out += scanned.shown;
    i = scanned.end;
    last = i;
  }
  return last === 0 ? text : out + text.slice(last);
}

/**
 * Untrusted single-line text (a title, a file name, a commit subject, a
 * progress line) made safe for a terminal; a newline becomes "␤". Text
 * without control characters is returned as it is.
 */
export function sanitizeLine(text: string): string {
  return UNSAFE_LINE.test(text) ? sanitize(text, false) : text;
}

/**
 * A file name from the repository, made safe for a terminal as sanitizeLine
 * does, and with a tab shown as "\t" (as git quotes it): a name that holds a
 * tab must not read as two names, or as a name and a column. For display
 * only: never address a file by what this returns.
 */
export function sanitizePath(name: string): string {
  return sanitizeLine(name.includes('\t') ? name.replace(/\t/g, '\\t') : name);
}

/**
 * Untrusted multi-line text (an answer, a diff, a commit message) made safe
 * for a terminal; newlines stay, CRLF becomes LF. Text without control
 * characters is returned as it is.
 */
export function sanitizeText(text: string): string {
  return UNSAFE_TEXT.test(text) ? sanitize(text, true) : text;
}

/** Whether `text` holds anything the sanitizers would change (multi-line rules). */
export function hasControlChars(text: string): boolean {
  return UNSAFE_TEXT.test(text);
}
