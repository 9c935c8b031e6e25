import * as z from 'zod';
import { KEYMAP, displayKey, type Binding, type ModeName } from './keymap.js';
import type { Keymap } from './key-lookup.js';
import { isKeyName, keyId, parseKeyId } from './keys.js';

// The person's own keys, in GROVE_HOME/keys.json: for a mode of the keymap,
// the keys of an action, replacing the ones Grove ships.
//
//   { "sessions": { "new": "n", "cancel": ["x", "delete"] },
//     "session": { "merge": "M" } }
//
// A file with any mistake (an unknown mode or action, a key Grove cannot
// read, an action that is several rows, two actions on one key where both
// can apply) is refused whole: the shipped keys stay, and the message names
// the mistake.

export interface KeyBindingsResult {
  /** The table to use: KEYMAP when the file is absent or refused. */
  readonly keymap: Keymap;
  /** How many actions the file rebinds (0 when refused). */
  readonly changed: number;
  /** Why the file was refused, or null. */
  readonly error: string | null;
}

const Keys = z.union([z.string(), z.array(z.string()).min(1)]);
const File = z.record(z.string(), z.record(z.string(), Keys));

const MODIFIERS = new Set(['ctrl', 'alt', 'shift']);

/** A key as the tables write it ('n', 'ctrl+o', 'shift+tab', 'f2'), or null when Grove would never see it. */
function canonicalKey(text: string): string | null {
  if (text === '' || text.trim() !== text) return null;
  const parts = text === '+' ? ['+'] : text.split('+');
  if (parts.slice(0, -1).some((p) => !MODIFIERS.has(p))) return null;
  if (!isKeyName(parts[parts.length - 1] ?? '')) return null;
  const id = keyId(parseKeyId(text));
  return id === text ? id : null;
}

/** Two rows can answer at once unless their statuses never meet. */
function overlap(a: Binding, b: Binding): boolean {
  if (!a.statuses || !b.statuses) return true;
  return a.statuses.some((s) => b.statuses?.includes(s));
}

const isMode = (mode: string): mode is ModeName => Object.hasOwn(KEYMAP, mode);

/** Reads keys.json's text (`where` names the file in messages). */
export function parseKeyBindings(text: string, where: string): KeyBindingsResult {
  const refuse = (why: string): KeyBindingsResult => ({
    keymap: KEYMAP,
    changed: 0,
    error: `${where}: ${why}; Grove's own keys are used until it is fixed`,
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return refuse(`not JSON (${(error as Error).message})`);
  }
  const parsed = File.safeParse(json);
  if (!parsed.success)
    return refuse(
      'must be an object of modes, each an object of actions, each a key or a list of keys',
    );
  const table: Record<string, readonly Binding[]> = { ...KEYMAP };
  let changed = 0;
  for (const [mode, actions] of Object.entries(parsed.data)) {
    if (!isMode(mode))
      return refuse(`unknown mode "${mode}" (modes: ${Object.keys(KEYMAP).join(', ')})`);
    let rows: Binding[] = [...table[mode]!];
    for (const [action, wanted] of Object.entries(actions)) {
      const at = rows.flatMap((row, i) => (row.action === action ? [i] : []));
      if (at.length === 0)
        return refuse(
          `unknown action "${action}" in ${mode} (actions: ${[...new Set(rows.map((r) => r.action))].join(', ')})`,
        );
      if (at.length > 1)
        return refuse(`"${action}" in ${mode} is several rows of keys and cannot be rebound`);
      const keys: string[] = [];
      for (const key of typeof wanted === 'string' ? [wanted] : wanted) {
        const id = canonicalKey(key);
        if (id === null)
          return refuse(
            `"${key}" (${mode} ${action}) is not a key Grove reads: write a character ("n", "N", "?"), a named key ("enter", "f2", "delete") or one with ctrl+, alt+ or shift+ ("ctrl+o", "shift+tab")`,
          );
        if (!keys.includes(id)) keys.push(id);
      }
      const index = at[0]!;
      rows = rows.map((row, i) => (i === index ? { ...row, keys } : row));
      changed++;
    }
    for (let i = 0; i < rows.length; i++)
      for (let j = i + 1; j < rows.length; j++) {
        const [a, b] = [rows[i]!, rows[j]!];
        if (a.action === b.action || !overlap(a, b)) continue;
        const both = a.keys.filter((k) => b.keys.includes(k));
        if (both.length > 0 && (a !== KEYMAP[mode][i] || b !== KEYMAP[mode][j]))
          return refuse(
            `${both.map(displayKey).join(', ')} would be both "${a.action}" and "${b.action}" in ${mode}`,
          );
      }
    table[mode] = rows;
  }
  return { keymap: table as Keymap, changed, error: null };
}
