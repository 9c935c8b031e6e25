import type { Key, TerminalEvent } from '../domain/keys.js';

const PASTE_END = '\x1b[201~';

/** xterm / kitty modifier parameter: 1 + bitmask (shift 1, alt 2, ctrl 4, super/meta 8). */
function modifiers(param: number | undefined): { shift: boolean; alt: boolean; ctrl: boolean } {
  const bits = Math.max(0, (param ?? 1) - 1);
  return {
    shift: (bits & 1) !== 0,
    alt: (bits & 2) !== 0 || (bits & 8) !== 0,
    ctrl: (bits & 4) !== 0,
  };
}

function key(
  name: string,
  mods: Partial<{ shift: boolean; alt: boolean; ctrl: boolean }> = {},
  text?: string,
): TerminalEvent {
  const k: Key = {
    name,
    ctrl: mods.ctrl ?? false,
    alt: mods.alt ?? false,
    shift: mods.shift ?? false,
  };
  return { type: 'key', key: text !== undefined && !k.ctrl && !k.alt ? { ...k, text } : k };
}

/** A printable character (or space) as a key. */
function charKey(
  char: string,
  mods: Partial<{ shift: boolean; alt: boolean; ctrl: boolean }> = {},
): TerminalEvent {
  if (char === ' ') return key('space', mods, ' ');
  const upper = char !== char.toLowerCase();
  return key(char, { ...mods, shift: (mods.shift ?? false) || upper }, char);
}

/** A key from a Unicode code point (kitty CSI u, modifyOtherKeys). */
function codeKey(code: number, param: number | undefined): TerminalEvent {
  const mods = modifiers(param);
  switch (code) {
    case 13:
      return key('enter', mods);
    case 9:
      return key('tab', mods);
    case 27:
      return key('escape', mods);
    case 127:
    case 8:
      return key('backspace', mods);
    case 32:
      return key('space', mods, ' ');
    default: {
      let char = String.fromCodePoint(code);
      if (mods.shift && !mods.ctrl && !mods.alt) char = char.toUpperCase();
      if (mods.ctrl || mods.alt) return key(char.toLowerCase(), mods);
      return charKey(char, mods);
    }
  }
}

const CSI_LETTERS: Record<string, string> = {
  A: 'up',
  B: 'down',
  C: 'right',
  D: 'left',
  H: 'home',
  F: 'end',
  P: 'f1',
  Q: 'f2',
  R: 'f3',
  S: 'f4',
};
const CSI_TILDE: Record<number, string> = {
  1: 'home',
  2: 'insert',
  3: 'delete',
  4: 'end',
  5: 'pageup',
  6: 'pagedown',
  7: 'home',
  8: 'end',
  11: 'f1',
  12: 'f2',
  13: 'f3',
  14: 'f4',
  15: 'f5',
  17: 'f6',
  18: 'f7',
  19: 'f8',
  20: 'f9',
  21: 'f10',
  23: 'f11',
  24: 'f12',
};

/** Control bytes (0x00–0x1f) and DEL as keys. */
function controlKey(byte: number): TerminalEvent {
  switch (byte) {
    case 0x0d:
      return key('enter');
    case 0x0a:
      return key('j', { ctrl: true });
    case 0x09:
      return key('tab');
    case 0x7f:
      return key('backspace');
    case 0x08:
      return key('backspace', { ctrl: true });
    case 0x00:
      return key('space', { ctrl: true });
    case 0x1b:
      return key('escape');
    default:
      if (byte >= 0x01 && byte <= 0x1a)
        return key(String.fromCharCode(byte + 0x60), { ctrl: true });
      return key(String.fromCharCode(byte + 0x40), { ctrl: true }); // 0x1c–0x1f: \ ] ^ _
  }
}

/**
 * Turns raw terminal input into key and paste events. Sequences may arrive
 * split across chunks; a lone trailing Esc stays pending until the caller
 * calls flushPending() (after ~30 ms) to tell Esc from Alt+key.
 */
export class KeyDecoder {
  private buffer = '';
  private paste: string | null = null;
  /** Set when the terminal answered the kitty keyboard protocol query. */
  kittySupported = false;

  get hasPending(): boolean {
    return this.buffer.length > 0 || this.paste !== null;
  }

  feed(chunk: string): TerminalEvent[] {
    this.buffer += chunk;
    return this.parse(false);
  }

  flushPending(): TerminalEvent[] {
    return this.parse(true);
  }

  private parse(flush: boolean): TerminalEvent[] {
    const out: TerminalEvent[] = [];
    while (this.buffer.length > 0) {
      if (this.paste !== null) {
        const end = this.buffer.indexOf(PASTE_END);
        if (end === -1) {
          // Keep a tail that might be the start of the end marker.
          let keep = 0;
          for (let n = Math.min(PASTE_END.length - 1, this.buffer.length); n > 0; n--) {
            if (PASTE_END.startsWith(this.buffer.slice(-n))) {
              keep = n;
              break;
            }
          }
          this.paste += this.buffer.slice(0, this.buffer.length - keep);
          this.buffer = this.buffer.slice(this.buffer.length - keep);
          break;
        }
        const text = (this.paste + this.buffer.slice(0, end)).replace(/\r\n?/g, '\n');
        this.buffer = this.buffer.slice(end + PASTE_END.length);
        this.paste = null;
        out.push({ type: 'paste', text });
        continue;
      }
      const consumed = this.next(out, flush);
      if (consumed === 0) break;
      this.buffer = this.buffer.slice(consumed);
    }
    return out;
  }

  /** Decodes one event at the start of the buffer; returns the characters used (0: need more). */
  private next(out: TerminalEvent[], flush: boolean): number {
    const b = this.buffer;
    const first = b.charCodeAt(0);
    if (first !== 0x1b) {
      if (first < 0x20 || first === 0x7f) {
        out.push(controlKey(first));
        return 1;
      }
      const char = String.fromCodePoint(b.codePointAt(0) ?? first);
      out.push(charKey(char));
      return char.length;
    }
    if (b.length === 1) {
      if (!flush) return 0;
      out.push(key('escape'));
      return 1;
    }
    const second = b[1] ?? '';
    if (second === '[') return this.csi(out, flush);
    if (second === 'O') {
      if (b.length < 3) {
        if (!flush) return 0;
        out.push(charKey('O', { alt: true }));
        return 2;
      }
      const name = CSI_LETTERS[b[2] ?? ''];
      if (name) out.push(key(name));
      return 3;
    }
    if (second === '\x1b') {
      out.push(key('escape'));
      return 1;
    }
    // Alt + the next key.
    const code = b.codePointAt(1) ?? 0;
    const inner =
      code < 0x20 || code === 0x7f ? controlKey(code) : charKey(String.fromCodePoint(code));
    if (inner.type === 'key')
      out.push({
        type: 'key',
        key: { name: inner.key.name, ctrl: inner.key.ctrl, shift: inner.key.shift, alt: true },
      });
    return 1 + String.fromCodePoint(code).length;
  }

  private csi(out: TerminalEvent[], flush: boolean): number {
    const b = this.buffer;
    let i = 2;
    while (i < b.length) {
      const c = b.charCodeAt(i);
      if (c >= 0x40 && c <= 0x7e) break;
      i++;
    }
    if (i >= b.length) {
      if (!flush) return 0;
      if (b.length === 2) out.push(charKey('[', { alt: true }));
      return b.length; // an unfinished sequence is dropped, never typed
    }
    const final = b[i] ?? '';
    const body = b.slice(2, i);
    const length = i + 1;
    if (body === '200' && final === '~') {
      this.paste = '';
      return length;
    }
    if (body.startsWith('?')) {
      if (final === 'u') this.kittySupported = true;
      return length; // replies to queries (kitty flags, DA1)
    }
    const params = body.split(';');
    const num = (index: number): number | undefined => {
      const raw = params[index]?.split(':')[0];
      return raw === undefined || raw === '' ? undefined : Number(raw);
    };
    if (final === 'u') {
      const code = num(0);
      const event = params[1]?.split(':')[1];
      if (code === undefined || event === '3') return length; // key release
      out.push(codeKey(code, num(1)));
      return length;
    }
    if (final === '~') {
      const first = num(0);
      if (first === 27) {
        const code = num(2);
        if (code !== undefined) out.push(codeKey(code, num(1)));
        return length;
      }
      const name = first === undefined ? undefined : CSI_TILDE[first];
      if (name) out.push(key(name, modifiers(num(1))));
      return length;
    }
    if (final === 'Z') {
      out.push(key('tab', { shift: true }));
      return length;
    }
    if (body === '' && (final === 'I' || final === 'O')) {
      out.push({ type: 'focus', focused: final === 'I' });
      return length;
    }
    const letter = CSI_LETTERS[final];
    if (letter) out.push(key(letter, modifiers(num(1))));
    return length; // unknown sequences are swallowed
  }
}
