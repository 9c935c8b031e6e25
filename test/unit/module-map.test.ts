import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture/module-map.md names every source file, and only files that exist.

const root = join(import.meta.dirname, '..', '..');
const map = readFileSync(join(root, 'docs', 'architecture', 'module-map.md'), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : /\.(tsx?|cjs)$/.test(entry.name)
        ? [relative(root, join(dir, entry.name))]
        : [],
  );
}

describe('the module map', () => {
  it.each(sources(join(root, 'src')))('describes %s', (file) => {
    expect(map).toContain(`\`${file}\``);
  });

  it('names no file that does not exist', () => {
    const named = [...map.matchAll(/`(src\/[^`]+\.(?:tsx?|cjs))`/g)].map((m) => m[1] ?? '');
    expect(named.filter((file) => !existsSync(join(root, file)))).toEqual([]);
  });
});
