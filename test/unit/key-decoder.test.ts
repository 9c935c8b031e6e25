import { describe, expect, it } from 'vitest';
import { keyId, parseKeyId, type TerminalEvent } from '../../src/domain/keys.js';
import { KeyDecoder } from '../../src/runtime/key-decoder.js';

function ids(events: TerminalEvent[]): string[] {
  return events.map((e) =>
    e.type === 'key' ? keyId(e.key) : e.type === 'paste' ? `paste:${e.text}` : `focus:${e.focused}`,
  );
}

function decode(...chunks: string[]): string[] {
  const decoder = new KeyDecoder();
  const events = chunks.flatMap((chunk) => decoder.feed(chunk));
  return ids([...events, ...decoder.flushPending()]);
}

describe('key decoder', () => {
  it.each([
    ['a', ['a']],
    ['A', ['A']],
    ['?', ['?']],
    ['é', ['é']],
    ['日本', ['日', '本']],
    ['😀', ['😀']],
    [' ', ['space']],
    ['abc', ['a', 'b', 'c']],
    ['\r', ['enter']],
    ['\n', ['ctrl+j']],
    ['\t', ['tab']],
    ['\x1b[Z', ['shift+tab']],
    ['\x7f', ['backspace']],
    ['\x03', ['ctrl+c']],
    ['\x04', ['ctrl+d']],
    ['\x15', ['ctrl+u']],
    ['\x1a', ['ctrl+z']],
    ['\x1b[A', ['up']],
    ['\x1b[B', ['down']],
    ['\x1b[C', ['right']],
    ['\x1b[D', ['left']],
    ['\x1bOA', ['up']],
    ['\x1b[H', ['home']],
    ['\x1b[F', ['end']],
    ['\x1b[1~', ['home']],
    ['\x1b[4~', ['end']],
    ['\x1b[7~', ['home']],
    ['\x1b[8~', ['end']],
    ['\x1b[3~', ['delete']],
    ['\x1b[5~', ['pageup']],
    ['\x1b[6~', ['pagedown']],
    ['\x1bOP', ['f1']],
    ['\x1b[15~', ['f5']],
    ['\x1b[24~', ['f12']],
    ['\x1b[1;5C', ['ctrl+right']],
    ['\x1b[1;3D', ['alt+left']],
    ['\x1b[1;2A', ['shift+up']],
    ['\x1b', ['escape']],
    ['\x1ba', ['alt+a']],
    ['\x1b\r', ['alt+enter']],
    ['\x1b\x7f', ['alt+backspace']],
    ['\x1b\x1b', ['escape', 'escape']],
    ['\x1b[13;2u', ['shift+enter']],
    ['\x1b[13;3u', ['alt+enter']],
    ['\x1b[27u', ['escape']],
    ['\x1b[99;5u', ['ctrl+c']],
    ['\x1b[122;6u', ['ctrl+shift+z']],
    ['\x1b[9;2u', ['shift+tab']],
    ['\x1b[127u', ['backspace']],
    ['\x1b[97;5:1u', ['ctrl+a']],
    ['\x1b[97;5:3u', []],
    ['\x1b[27;2;13~', ['shift+enter']],
    ['\x1b[I\x1b[O', ['focus:true', 'focus:false']],
    ['\x1b[1I\x1bOI', []],
    ['\x1b[?1u', []],
    ['\x1b[?62;22c', []],
    ['\x1b[999X', []],
  ])('decodes %j', (input, expected) => {
    expect(decode(input)).toEqual(expected);
  });

  it('keeps a sequence split across chunks together', () => {
    expect(decode('\x1b', '[', '1;5', 'C')).toEqual(['ctrl+right']);
  });

  it('keeps a lone Esc pending until it is flushed', () => {
    const decoder = new KeyDecoder();
    expect(decoder.feed('\x1b')).toEqual([]);
    expect(decoder.hasPending).toBe(true);
    expect(ids(decoder.flushPending())).toEqual(['escape']);
    expect(decoder.hasPending).toBe(false);
  });

  it('emits a bracketed paste as one event, even across chunks', () => {
    expect(decode('\x1b[200~hello\r\nwor', 'ld\x1b[2', '01~x')).toEqual([
      'paste:hello\nworld',
      'x',
    ]);
  });

  it('keeps escape sequences inside a paste as text', () => {
    expect(decode('\x1b[200~a\x1b[Ab\x1b[201~')).toEqual(['paste:a\x1b[Ab']);
  });

  it('notices that the terminal speaks the kitty keyboard protocol', () => {
    const decoder = new KeyDecoder();
    decoder.feed('\x1b[?1u');
    expect(decoder.kittySupported).toBe(true);
  });

  it.each([
    'a',
    'A',
    'ctrl+c',
    'alt+enter',
    'shift+enter',
    'shift+tab',
    'ctrl+shift+z',
    'space',
    'enter',
    '?',
  ])('round-trips the key id %s', (id) => {
    expect(keyId(parseKeyId(id))).toBe(id);
  });
});
