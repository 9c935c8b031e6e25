import { readFileSync } from 'node:fs';
import { parseKeyBindings, type KeyBindingsResult } from '../domain/key-bindings.js';
import { KEYMAP } from '../domain/keymap.js';

/**
 * The person's keys from `path` (GROVE_HOME/keys.json), read once when the
 * TUI starts. No file: Grove's own keys. A file Grove cannot read or that
 * has a mistake: Grove's own keys, and the reason in `error` (said on the
 * first screen).
 */
export function loadKeyBindings(path: string): KeyBindingsResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { keymap: KEYMAP, changed: 0, error: null };
    return {
      keymap: KEYMAP,
      changed: 0,
      error: `${path}: cannot be read (${(error as Error).message}); Grove's own keys are used`,
    };
  }
  return parseKeyBindings(text, path);
}
