import { describe, expect, it } from 'vitest';
import { parseKeyBindings } from '../../src/domain/key-bindings.js';
import { KEYMAP } from '../../src/domain/keymap.js';
import { actionFor, availableBindings, setKeymap } from '../../src/domain/key-lookup.js';

const WHERE = '/home/me/.grove/keys.json';

function refused(text: string): string {
  const result = parseKeyBindings(text, WHERE);
  expect(result.keymap).toBe(KEYMAP);
  expect(result.changed).toBe(0);
  return result.error ?? '';
}

describe('keys.json', () => {
  it('replaces the keys of the actions it names, in their modes only', () => {
    const result = parseKeyBindings(
      JSON.stringify({ sessions: { new: 'n', cancel: ['x', 'delete'] }, session: { merge: 'M' } }),
      WHERE,
    );
    expect(result.error).toBeNull();
    expect(result.changed).toBe(3);
    setKeymap(result.keymap);
    try {
      expect(actionFor('sessions', 'n')).toBe('new');
      expect(actionFor('sessions', 'a')).toBeUndefined();
      expect(actionFor('sessions', 'x')).toBe('cancel');
      expect(actionFor('sessions', 'delete')).toBe('cancel');
      expect(actionFor('session', 'M', { status: 'Review' })).toBe('merge');
      expect(actionFor('session', 'm', { status: 'Review' })).toBeUndefined();
      // Another mode keeps its keys, and the footer and help read the same table.
      expect(actionFor('projects', 'a')).toBe(actionFor('projects', 'a'));
      expect(availableBindings('sessions').find((r) => r.action === 'new')?.keys).toEqual(['n']);
    } finally {
      setKeymap(KEYMAP);
    }
    expect(actionFor('sessions', 'a')).toBe('new');
  });

  it('reads keys as the tables write them: characters, named keys, ctrl+, alt+ and shift+', () => {
    const result = parseKeyBindings(
      JSON.stringify({ sessions: { new: ['N', 'ctrl+o', 'alt+n', 'f2', 'shift+tab'] } }),
      WHERE,
    );
    expect(result.error).toBeNull();
    expect(result.keymap.sessions.find((r) => r.action === 'new')?.keys).toEqual([
      'N',
      'ctrl+o',
      'alt+n',
      'f2',
      'shift+tab',
    ]);
  });

  it('refuses a file with a mistake whole, naming it, and keeps the shipped keys', () => {
    expect(refused('{ "sessions": ')).toMatch(/^\/home\/me\/\.grove\/keys\.json: not JSON/);
    expect(refused('["n"]')).toContain('must be an object of modes');
    expect(refused('{ "lists": { "new": "n" } }')).toContain('unknown mode "lists"');
    expect(refused('{ "sessions": { "create": "n" } }')).toContain(
      'unknown action "create" in sessions',
    );
    expect(refused('{ "composer": { "edit": "ctrl+b" } }')).toContain(
      '"edit" in composer is several rows of keys and cannot be rebound',
    );
    expect(refused('{ "sessions": { "new": "ctrl+" } }')).toContain('is not a key Grove reads');
    expect(refused('{ "sessions": { "new": "Ctrl+N" } }')).toContain('is not a key Grove reads');
    expect(refused('{ "sessions": { "new": "nn" } }')).toContain('is not a key Grove reads');
    expect(refused('{ "sessions": { "new": [] } }')).toContain('must be an object of modes');
    // A good mode before a bad one changes nothing either.
    expect(refused('{ "sessions": { "new": "n" }, "diff": { "nope": "x" } }')).toContain(
      'unknown action "nope" in diff',
    );
  });

  it('refuses two actions on one key where both can answer', () => {
    expect(refused('{ "sessions": { "new": "c" } }')).toBe(
      `${WHERE}: c would be both "new" and "cancel" in sessions; Grove's own keys are used until it is fixed`,
    );
    // Swapping two keys in one file is fine.
    const swapped = parseKeyBindings('{ "sessions": { "new": "c", "cancel": "a" } }', WHERE);
    expect(swapped.error).toBeNull();
  });
});
