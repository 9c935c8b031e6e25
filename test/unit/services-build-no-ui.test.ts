import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// App services report facts as AppEvents; the reducer decides what the screen shows
// (src/app/popups.ts). No service builds a popup or a view mode, or reads the popup
// on screen to decide what to do.

const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

const FORBIDDEN: [string, RegExp][] = [
  ['emits a popup', /type:\s*'popup'/],
  ['sets a view mode', /type:\s*'mode'/],
  ['reads the popup on screen', /state\.popup\b/],
  ['builds a popup', /kind:\s*'(confirm|info|input)'/],
];

describe('app services build no UI', () => {
  it.each(sources(join(root, 'src', 'app', 'services')).map((f) => relative(root, f)))(
    '%s',
    (file) => {
      const text = readFileSync(join(root, file), 'utf8');
      const found = FORBIDDEN.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
      expect(found).toEqual([]);
    },
  );
});
