import type { Key } from './keys.js';

/** The prompt composer's text and cursor, with undo and redo. Immutable. */
export interface Snapshot {
  readonly text: string;
  readonly cursor: number;
}

export interface TextBuffer extends Snapshot {
  readonly undo: readonly Snapshot[];
  readonly redo: readonly Snapshot[];
  /** True while consecutive typed characters join one undo step. */
  readonly typing?: boolean;
}

export type EditAction =
  | 'left'
  | 'right'
  | 'up'
  | 'down'
  | 'wordLeft'
  | 'wordRight'
  | 'lineStart'
  | 'lineEnd'
  | 'inputStart'
  | 'inputEnd'
  | 'backspace'
  | 'delete'
  | 'deleteWordBack'
  | 'deleteLine'
  | 'killToLineEnd'
  | 'newline'
  | 'undo'
  | 'redo';

const HISTORY = 200;

export const emptyBuffer: TextBuffer = { text: '', cursor: 0, undo: [], redo: [] };

export function bufferFrom(text: string): TextBuffer {
  return { text, cursor: text.length, undo: [], redo: [] };
}

const isWord = (char: string): boolean => /[\p{L}\p{N}_]/u.test(char);

/** Index of the code point before `i` (never splits a surrogate pair). */
function prevIndex(text: string, i: number): number {
  if (i <= 0) return 0;
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return i - 2;
  }
  return i - 1;
}

function nextIndex(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const code = text.codePointAt(i) ?? 0;
  return i + (code > 0xffff ? 2 : 1);
}

function lineStart(text: string, i: number): number {
  return text.lastIndexOf('\n', i - 1) + 1;
}

function lineEnd(text: string, i: number): number {
  const end = text.indexOf('\n', i);
  return end === -1 ? text.length : end;
}

function wordLeft(text: string, i: number): number {
  let at = i;
  while (at > 0 && !isWord(text.slice(prevIndex(text, at), at))) at = prevIndex(text, at);
  while (at > 0 && isWord(text.slice(prevIndex(text, at), at))) at = prevIndex(text, at);
  return at;
}

function wordRight(text: string, i: number): number {
  let at = i;
  while (at < text.length && !isWord(text.slice(at, nextIndex(text, at)))) at = nextIndex(text, at);
  while (at < text.length && isWord(text.slice(at, nextIndex(text, at)))) at = nextIndex(text, at);
  return at;
}

export function cursorPosition(b: Snapshot): { line: number; column: number } {
  const before = b.text.slice(0, b.cursor);
  const line = before.split('\n').length - 1;
  return { line, column: Array.from(before.slice(lineStart(b.text, b.cursor))).length };
}

/** Moves to the same column on the line above (-1) or below (+1). */
function vertical(text: string, cursor: number, step: -1 | 1): number {
  const start = lineStart(text, cursor);
  const column = Array.from(text.slice(start, cursor)).length;
  let targetStart: number;
  if (step === -1) {
    if (start === 0) return 0;
    targetStart = lineStart(text, start - 1);
  } else {
    const end = lineEnd(text, cursor);
    if (end === text.length) return text.length;
    targetStart = end + 1;
  }
  const targetEnd = lineEnd(text, targetStart);
  const chars = Array.from(text.slice(targetStart, targetEnd));
  return targetStart + chars.slice(0, column).join('').length;
}

function edit(b: TextBuffer, text: string, cursor: number, typing = false): TextBuffer {
  if (text === b.text) return { ...b, cursor, typing: false };
  const joins = typing && b.typing === true;
  const undo = joins ? b.undo : [...b.undo, { text: b.text, cursor: b.cursor }].slice(-HISTORY);
  return { text, cursor, undo, redo: [], typing };
}

function move(b: TextBuffer, cursor: number): TextBuffer {
  return { ...b, cursor, typing: false };
}

export function insertText(b: TextBuffer, inserted: string): TextBuffer {
  if (inserted === '') return b;
  const text = b.text.slice(0, b.cursor) + inserted + b.text.slice(b.cursor);
  // Typed word characters join one undo step; spaces, newlines and pastes start a new one.
  const typing = Array.from(inserted).length === 1 && isWord(inserted);
  return edit(b, text, b.cursor + inserted.length, typing);
}

function remove(b: TextBuffer, from: number, to: number): TextBuffer {
  if (from === to) return move(b, from);
  return edit(b, b.text.slice(0, from) + b.text.slice(to), from);
}

/** Replaces `from`..`to` with `inserted` (one undo step), the cursor after it. */
export function replaceRange(
  b: TextBuffer,
  from: number,
  to: number,
  inserted: string,
): TextBuffer {
  return edit(b, b.text.slice(0, from) + inserted + b.text.slice(to), from + inserted.length);
}

export function applyEdit(b: TextBuffer, action: EditAction): TextBuffer {
  const { text, cursor } = b;
  switch (action) {
    case 'left':
      return move(b, prevIndex(text, cursor));
    case 'right':
      return move(b, nextIndex(text, cursor));
    case 'up':
      return move(b, vertical(text, cursor, -1));
    case 'down':
      return move(b, vertical(text, cursor, 1));
    case 'wordLeft':
      return move(b, wordLeft(text, cursor));
    case 'wordRight':
      return move(b, wordRight(text, cursor));
    case 'lineStart':
      return move(b, lineStart(text, cursor));
    case 'lineEnd':
      return move(b, lineEnd(text, cursor));
    case 'inputStart':
      return move(b, 0);
    case 'inputEnd':
      return move(b, text.length);
    case 'backspace':
      return remove(b, prevIndex(text, cursor), cursor);
    case 'delete':
      return remove(b, cursor, nextIndex(text, cursor));
    case 'deleteWordBack':
      return remove(b, wordLeft(text, cursor), cursor);
    case 'deleteLine':
      return remove(b, lineStart(text, cursor), cursor);
    case 'killToLineEnd': {
      const end = lineEnd(text, cursor);
      return remove(b, cursor, end === cursor ? nextIndex(text, cursor) : end);
    }
    case 'newline':
      return insertText(b, '\n');
    case 'undo': {
      const previous = b.undo[b.undo.length - 1];
      if (!previous) return b;
      return {
        text: previous.text,
        cursor: previous.cursor,
        undo: b.undo.slice(0, -1),
        redo: [...b.redo, { text, cursor }],
        typing: false,
      };
    }
    case 'redo': {
      const next = b.redo[b.redo.length - 1];
      if (!next) return b;
      return {
        text: next.text,
        cursor: next.cursor,
        undo: [...b.undo, { text, cursor }],
        redo: b.redo.slice(0, -1),
        typing: false,
      };
    }
    default: {
      const never: never = action;
      return never;
    }
  }
}

/** The shared editing keys (composer, question answers, popup inputs). Enter is not an edit. */
export function editActionForKey(key: Key): EditAction | null {
  const { name, ctrl, alt, shift } = key;
  if (ctrl && !alt) {
    if (name === 'z' && shift) return 'redo';
    switch (name) {
      case 'a':
        return 'lineStart';
      case 'e':
        return 'lineEnd';
      case 'w':
      case 'backspace':
        return 'deleteWordBack';
      case 'u':
        return 'deleteLine';
      case 'k':
        return 'killToLineEnd';
      case 'z':
        return 'undo';
      case 'y':
        return 'redo';
      case 'j':
        return 'newline';
      case 'left':
        return 'wordLeft';
      case 'right':
        return 'wordRight';
      default:
        return null;
    }
  }
  if (alt) {
    switch (name) {
      case 'left':
      case 'b':
        return 'wordLeft';
      case 'right':
      case 'f':
        return 'wordRight';
      case 'backspace':
        return 'deleteWordBack';
      case 'enter':
        return 'newline';
      default:
        return null;
    }
  }
  switch (name) {
    case 'left':
      return shift ? 'wordLeft' : 'left';
    case 'right':
      return shift ? 'wordRight' : 'right';
    case 'up':
      return 'up';
    case 'down':
      return 'down';
    case 'home':
      return 'inputStart';
    case 'end':
      return 'inputEnd';
    case 'backspace':
      return shift ? 'deleteWordBack' : 'backspace';
    case 'delete':
      return 'delete';
    case 'enter':
      return shift ? 'newline' : null;
    default:
      return null;
  }
}
