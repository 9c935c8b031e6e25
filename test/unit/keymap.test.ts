import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KEYMAP, displayKey, type ModeName } from '../../src/domain/keymap.js';
import { actionFor, availableBindings } from '../../src/domain/key-lookup.js';
import { keymapMarkdown } from '../../src/domain/keymap-doc.js';

describe('key-binding tables', () => {
  it.each(Object.keys(KEYMAP) as ModeName[])('%s binds every key to one action only', (mode) => {
    const seen = new Map<string, string>();
    const rows: readonly {
      keys: readonly string[];
      action: string;
      statuses?: readonly string[];
    }[] = KEYMAP[mode];
    for (const row of rows) {
      for (const key of row.keys) {
        const previous = seen.get(key);
        // The composer maps many keys to the generic 'edit' action; anything else must be unique.
        if (previous && !(previous === 'edit' && row.action === 'edit')) {
          expect.fail(`${mode}: ${key} is bound to both ${previous} and ${row.action}`);
        }
        seen.set(key, row.action);
      }
    }
  });

  it('offers merge only to sessions that are ready for it', () => {
    expect(actionFor('session', 'm', { status: 'Review' })).toBe('merge');
    expect(actionFor('session', 'm', { status: 'InProgress' })).toBeUndefined();
    expect(actionFor('session', 'm', { status: 'Done' })).toBeUndefined();
  });

  it('offers stop only while a turn runs', () => {
    expect(actionFor('session', 'ctrl+c', { status: 'InProgress' })).toBe('stop');
    expect(actionFor('session', 'ctrl+c', { status: 'Review' })).toBeUndefined();
  });

  it('hides actions from the help of a finished session', () => {
    const actions = availableBindings('session', { status: 'Done' }).map((b) => b.action);
    expect(actions).toContain('diff');
    expect(actions).not.toContain('merge');
    expect(actions).not.toContain('reply');
  });

  it.each([
    ['ctrl+c', 'Ctrl+C'],
    ['shift+tab', 'Shift+Tab'],
    ['enter', 'Enter'],
    ['escape', 'Esc'],
    ['G', 'G'],
  ])('shows %s as %s', (id, text) => {
    expect(displayKey(id)).toBe(text);
  });

  it('matches the keybinding docs (run npm run docs:keys after changing a table)', () => {
    const docs = readFileSync(new URL('../../docs/usage/keybindings.md', import.meta.url), 'utf8');
    expect(docs).toBe(keymapMarkdown());
  });
});
