/** One decoded key press. */
export interface Key {
  /** The character for printable keys ('a', 'A', '?', 'é'); otherwise a name like 'enter' or 'up'. */
  readonly name: string;
  readonly ctrl: boolean;
  readonly alt: boolean;
  readonly shift: boolean;
  /** The text the key types, only for printable keys without Ctrl/Alt. */
  readonly text?: string;
}

export type TerminalEvent =
  | { readonly type: 'key'; readonly key: Key }
  | { readonly type: 'paste'; readonly text: string }
  /** The terminal gained or lost focus (focus reporting, mode 1004; only terminals that support it send it). */
  | { readonly type: 'focus'; readonly focused: boolean };

const NAMED = new Set([
  'enter',
  'escape',
  'tab',
  'backspace',
  'delete',
  'up',
  'down',
  'left',
  'right',
  'home',
  'end',
  'pageup',
  'pagedown',
  'insert',
  'space',
  ...Array.from({ length: 12 }, (_, i) => `f${i + 1}`),
]);

/**
 * The canonical id used in key-binding tables: 'a', 'A', '?', 'enter',
 * 'ctrl+c', 'alt+enter', 'shift+enter', 'shift+tab', 'ctrl+shift+z', 'space'.
 * Shift is implied by the character itself for printable keys.
 */
export function keyId(key: Key): string {
  const printable = !NAMED.has(key.name) && Array.from(key.name).length === 1;
  const parts: string[] = [];
  if (key.ctrl) parts.push('ctrl');
  if (key.alt) parts.push('alt');
  if (key.shift && (!printable || key.ctrl || key.alt)) parts.push('shift');
  const name = printable && (key.ctrl || key.alt) ? key.name.toLowerCase() : key.name;
  parts.push(name);
  return parts.join('+');
}

/** A key's name as keyId writes it: one character, or a named key ('enter', 'f2'). */
export function isKeyName(name: string): boolean {
  return NAMED.has(name) || Array.from(name).length === 1;
}

/** The inverse of keyId, for tables and tests. */
export function parseKeyId(id: string): Key {
  const parts = id === '+' ? ['+'] : id.split('+');
  const name = parts[parts.length - 1] ?? '';
  const mods = new Set(parts.slice(0, -1));
  const ctrl = mods.has('ctrl');
  const alt = mods.has('alt');
  const printable = !NAMED.has(name) && Array.from(name).length === 1;
  const shift = mods.has('shift') || (printable && name !== name.toLowerCase());
  const key: Key = { name, ctrl, alt, shift };
  if (printable && !ctrl && !alt) return { ...key, text: name };
  if (name === 'space' && !ctrl && !alt) return { ...key, text: ' ' };
  return key;
}
