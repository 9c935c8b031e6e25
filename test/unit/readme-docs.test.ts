import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README's Documentation list is how a new user finds the docs: it names
// every page under docs/, and every page it names exists.

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Documentation'));
const linked = [...section.matchAll(/\]\((docs\/[^)#\s]+\.md)(#[^)]*)?\)/g)].map((m) => m[1]);

function pages(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? pages(join(dir, entry.name))
      : entry.name.endsWith('.md')
        ? [relative(root, join(dir, entry.name))]
        : [],
  );
}

describe("the README's Documentation list", () => {
  it('links every page under docs/', () => {
    expect(section.startsWith('## Documentation')).toBe(true);
    const missing = pages(join(root, 'docs')).filter((page) => !linked.includes(page));
    expect(missing).toEqual([]);
  });

  it('links only pages that exist', () => {
    expect(linked.filter((page) => page === undefined || !existsSync(join(root, page)))).toEqual(
      [],
    );
  });
});
