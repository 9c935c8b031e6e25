import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every runtime dependency is there because the app imports it.

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  engines: Record<string, string>;
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : /\.(tsx?|cjs)$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

const code = sources(join(root, 'src'))
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');

describe('runtime dependencies', () => {
  it.each(Object.keys(pkg.dependencies))('%s is imported by the app', (name) => {
    const imported = new RegExp(
      `(from|import\\(|require\\()\\s*'${name.replace(/[/.]/g, '\\$&')}(/[^']*)?'`,
    );
    expect(code).toMatch(imported);
  });

  it('declares the Node versions it runs on', () => {
    expect(pkg.engines['node']).toBe('>=22.19');
  });
});
