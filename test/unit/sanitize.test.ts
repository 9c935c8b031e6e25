import { describe, expect, it } from 'vitest';
import {
  MAX_SEQUENCE_BODY,
  hasControlChars,
  sanitizeLine,
  sanitizePath,
  sanitizeText,
} from '../../src/domain/sanitize.js';

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

/** Every C0/C1 control and DEL (tab and newline aside). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

interface Case {
  readonly name: string;
  readonly input: string;
  readonly text: string;
}

describe('sanitizeText: every sequence class becomes a visible placeholder', () => {
  const cases: readonly Case[] = [
    // C0 controls and DEL
    { name: 'carriage return (lone)', input: 'done\rEVIL', text: 'done␍EVIL' },
    { name: 'backspace', input: 'rm\b\b-rf', text: 'rm␈␈-rf' },
    { name: 'bell', input: `ding${BEL}`, text: 'ding␇' },
    { name: 'NUL', input: 'a\x00b', text: 'a␀b' },
    { name: 'vertical tab and form feed', input: 'a\x0bb\x0cc', text: 'a␋b␌c' },
    { name: 'DEL', input: 'a\x7fb', text: 'a␡b' },
    { name: 'shift out / shift in (charset switch)', input: '\x0eline\x0f', text: '␎line␏' },
    // CSI
    { name: 'SGR colour', input: `${ESC}[31mred${ESC}[0m`, text: '␛[31mred␛[0m' },
    { name: 'SGR 24-bit colour', input: `${ESC}[38;2;255;0;0mx`, text: '␛[38;2;255;0;0mx' },
    { name: 'cursor up and erase line', input: `ok${ESC}[2A${ESC}[2K`, text: 'ok␛[2A␛[2K' },
    { name: 'cursor position', input: `${ESC}[10;20Hx`, text: '␛[10;20Hx' },
    { name: 'clear screen', input: `${ESC}[2J${ESC}[H`, text: '␛[2J␛[H' },
    { name: 'private mode: alternate screen off', input: `${ESC}[?1049l`, text: '␛[?1049l' },
    { name: 'private mode: hide cursor', input: `${ESC}[?25l`, text: '␛[?25l' },
    { name: 'kitty keyboard push', input: `${ESC}[>1u`, text: '␛[>1u' },
    { name: 'CSI with an intermediate byte (DECSCUSR)', input: `${ESC}[2 q`, text: '␛[2 q' },
    { name: 'CSI cut short by a newline', input: `${ESC}[12\nnext`, text: '␛[12\nnext' },
    { name: 'CSI at the end of the text', input: `x${ESC}[`, text: 'x␛[' },
    // OSC
    {
      name: 'OSC 0 window title ended by BEL',
      input: `${ESC}]0;pwned${BEL}after`,
      text: '␛]0;pwned␇after',
    },
    {
      name: 'OSC 2 window title ended by ST',
      input: `${ESC}]2;pwned${ST}after`,
      text: '␛]2;pwned␛\\after',
    },
    {
      name: 'OSC 52 clipboard write',
      input: `${ESC}]52;c;cm0gLXJmIH4=${BEL}`,
      text: '␛]52;c;cm0gLXJmIH4=␇',
    },
    {
      name: 'OSC 8 hyperlink',
      input: `${ESC}]8;;https://evil.example/${ST}click${ESC}]8;;${ST}`,
      text: '␛]8;;https://evil.example/␛\\click␛]8;;␛\\',
    },
    { name: 'OSC with non-ASCII text', input: `${ESC}]0;títle ✓${BEL}`, text: '␛]0;títle ✓␇' },
    {
      name: 'unterminated OSC: the text after a newline stays',
      input: `${ESC}]0;title\nthe rest`,
      text: '␛]0;title\nthe rest',
    },
    { name: 'unterminated OSC at the end', input: `a${ESC}]52;c;Zm9v`, text: 'a␛]52;c;Zm9v' },
    // Control strings
    {
      name: 'DCS (e.g. tmux passthrough) ended by ST',
      input: `${ESC}Ptmux;payload${ST}`,
      text: '␛Ptmux;payload␛\\',
    },
    { name: 'APC', input: `${ESC}_Gf=100;AAAA${ST}`, text: '␛_Gf=100;AAAA␛\\' },
    { name: 'PM', input: `${ESC}^private${ST}`, text: '␛^private␛\\' },
    { name: 'SOS', input: `${ESC}Xstring${ST}`, text: '␛Xstring␛\\' },
    {
      name: 'DCS with an escape inside: each part visible',
      input: `${ESC}Ptmux;${ESC}${ESC}]52;c;eA==${BEL}${ST}`,
      text: '␛Ptmux;␛␛]52;c;eA==␇␛\\',
    },
    // Single-character and nF escapes
    { name: 'reset (RIS)', input: `${ESC}cclean`, text: '␛cclean' },
    { name: 'save / restore cursor', input: `${ESC}7x${ESC}8`, text: '␛7x␛8' },
    { name: 'reverse index', input: `${ESC}M`, text: '␛M' },
    { name: 'keypad mode', input: `${ESC}=`, text: '␛=' },
    {
      name: 'charset designation (nF with intermediate)',
      input: `${ESC}(0lqk${ESC}(B`,
      text: '␛(0lqk␛(B',
    },
    { name: 'DEC screen alignment test', input: `${ESC}#8`, text: '␛#8' },
    { name: 'lone ESC at the end', input: `bye${ESC}`, text: 'bye␛' },
    { name: 'lone ESC before a newline', input: `a${ESC}\nb`, text: 'a␛\nb' },
    { name: 'ESC ESC', input: `${ESC}${ESC}[1m`, text: '␛␛[1m' },
    { name: 'ESC before non-ASCII', input: `${ESC}é`, text: '␛é' },
    // C1 controls
    { name: '8-bit CSI (U+009B)', input: '\u009b31mred', text: '␛[31mred' },
    { name: '8-bit CSI cursor move', input: 'a\u009b2Ab', text: 'a␛[2Ab' },
    {
      name: '8-bit OSC (U+009D) ended by 8-bit ST (U+009C)',
      input: '\u009d0;pwned\u009cafter',
      text: '␛]0;pwned␛\\after',
    },
    { name: '8-bit OSC ended by BEL', input: `\u009d52;c;eA==${BEL}`, text: '␛]52;c;eA==␇' },
    { name: '8-bit DCS (U+0090)', input: '\u0090q#0;2;0;0;0\u009c', text: '␛Pq#0;2;0;0;0␛\\' },
    { name: 'NEL (U+0085)', input: 'a\u0085b', text: 'a␛Eb' },
    { name: 'lone 8-bit ST', input: 'a\u009cb', text: 'a␛\\b' },
    { name: 'U+0080', input: 'a\u0080b', text: 'a␛@b' },
  ];

  it.each(cases)('$name', ({ input, text }) => {
    const out = sanitizeText(input);

    expect(out).toBe(text);
    expect(out).not.toMatch(CONTROL);
  });
});

describe('sanitizeText: what passes', () => {
  it('returns text without control characters as the very same string', () => {
    const input = 'Plain text, with ümlauts, 日本語, emoji 🌳 and "quotes".\n\tIndented.';

    expect(sanitizeText(input)).toBe(input);
    expect(hasControlChars(input)).toBe(false);
  });

  it('keeps every printable non-ASCII character, including ones just past the C1 range', () => {
    const input = '\u00a0\u00a9\u00ff\u0100\u2028\u200b\ufeff\u{1f600} ␛ already a picture';

    expect(sanitizeText(input)).toBe(input);
  });

  it('keeps tabs and newlines', () => {
    expect(sanitizeText('a\tb\nc\n')).toBe('a\tb\nc\n');
  });

  it('turns CRLF line endings into LF and keeps a lone CR visible', () => {
    expect(sanitizeText('one\r\ntwo\r\nthree\rfour')).toBe('one\ntwo\nthree␍four');
  });

  it('is idempotent', () => {
    const once = sanitizeText(`${ESC}]52;c;eA==${BEL}\r\n${ESC}[2Kx\u009b1m`);

    expect(sanitizeText(once)).toBe(once);
  });
});

describe('sanitizeLine', () => {
  it('makes newlines visible too', () => {
    expect(sanitizeLine('title\nsecond line')).toBe('title␤second line');
  });

  it('shows CRLF as two pictures', () => {
    expect(sanitizeLine('a\r\nb')).toBe('a␍␤b');
  });

  it('keeps tabs', () => {
    expect(sanitizeLine('a\tb')).toBe('a\tb');
  });

  it('handles a file name carrying OSC 0 and OSC 52', () => {
    expect(sanitizeLine(`x${ESC}]0;owned${BEL}${ESC}]52;c;cm0=${BEL}.txt`)).toBe(
      'x␛]0;owned␇␛]52;c;cm0=␇.txt',
    );
  });

  it('returns a clean line as the very same string', () => {
    const line = 'Add the greeting — ünïcode ✓';

    expect(sanitizeLine(line)).toBe(line);
  });
});

describe('very long sequences are shown bounded', () => {
  it('cuts a long OSC 52 payload and keeps the text after it', () => {
    const payload = 'A'.repeat(100_000);

    const out = sanitizeText(`${ESC}]52;c;${payload}${BEL}after`);

    expect(out).toBe(`␛]52;c;${'A'.repeat(MAX_SEQUENCE_BODY - 5)}…␇after`);
  });

  it('cuts a CSI with thousands of parameters', () => {
    const params = '1;'.repeat(5_000);

    const out = sanitizeText(`${ESC}[${params}mtext`);

    expect(out).toBe(`␛[${params.slice(0, MAX_SEQUENCE_BODY)}…mtext`);
  });

  it('cuts a long unterminated control string', () => {
    const out = sanitizeText(`${ESC}P${'q'.repeat(1_000)}`);

    expect(out).toBe(`␛P${'q'.repeat(MAX_SEQUENCE_BODY)}…`);
  });

  it('handles a long text made only of escapes without blowing up', () => {
    const input = `${ESC}[1m`.repeat(50_000);

    const out = sanitizeText(input);

    expect(out).toBe('␛[1m'.repeat(50_000));
  });
});

describe('bidirectional controls', () => {
  // U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: a terminal that
  // honours them shows text in another order than it is.
  const BIDI = [
    0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
  ];

  it.each(BIDI.map((code) => [code.toString(16).toUpperCase().padStart(4, '0'), code]))(
    'U+%s is shown as its escape in lines and in text',
    (hex, code) => {
      const c = String.fromCharCode(code);

      expect(sanitizeLine(`a${c}b.txt`)).toBe(`a\\u${hex}b.txt`);
      expect(sanitizeText(`x${c}\ny`)).toBe(`x\\u${hex}\ny`);
      expect(hasControlChars(`a${c}b`)).toBe(true);
    },
  );

  it('shows a Trojan Source comment as it is stored', () => {
    const line = 'if (isAdmin) { /* \u202E } \u2066if (true)\u2069 \u2066 */';

    expect(sanitizeText(line)).toBe(
      String.raw`if (isAdmin) { /* \u202E } \u2066if (true)\u2069 \u2066 */`,
    );
  });

  it('escapes one inside an escape sequence, and stays idempotent', () => {
    const once = sanitizeText(`${ESC}]0;ti\u202Etle${BEL}ok`);

    expect(once).toBe('␛]0;ti\\u202Etle␇ok');
    expect(sanitizeText(once)).toBe(once);
  });

  it('leaves other invisible but harmless characters alone', () => {
    expect(sanitizeLine('zero\u200bwidth\u2028')).toBe('zero\u200bwidth\u2028');
  });
});

describe('sanitizePath', () => {
  it('shows a tab as \\t, so one name never reads as two columns', () => {
    expect(sanitizePath('tab\tname.txt')).toBe('tab\\tname.txt');
  });

  it('escapes bidi controls and controls as sanitizeLine does', () => {
    expect(sanitizePath('a\u202Eb\n.txt')).toBe('a\\u202Eb␤.txt');
  });

  it('returns a clean name as the very same string', () => {
    expect(sanitizePath('docs/café notes.md')).toBe('docs/café notes.md');
  });
});
