import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// src/ has no import cycle, type-only imports included (ESLint's import-x/no-cycle
// skips those: channel.ts ⇄ launcher.ts, keymap.ts ⇄ key-names.ts and turn.ts ⇄
// turn-commit.ts were such). The generated Codex protocol is left out: its two files
// import each other's types as Codex generates them.

const root = join(import.meta.dirname, '..', '..');
const srcDir = join(root, 'src');
const generated = join(srcDir, 'infra', 'agent', 'codex', 'protocol');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === generated ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The source file a relative `.js` specifier names: its `.ts` or `.tsx`. */
function sourceOf(path: string): string {
  const ts = path.replace(/\.js$/, '.ts');
  return existsSync(ts) ? ts : path.replace(/\.js$/, '.tsx');
}

/** The source files `file` imports (static, dynamic, type-only and re-exports), by absolute path. */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)];
  return specs
    .map((m) => sourceOf(resolve(dirname(file), m[1] ?? '')))
    .filter((path) => known.has(path));
}

/** Every cycle found by a depth-first walk, each as the files in import order. */
function cycles(files: readonly string[]): string[][] {
  const known = new Set(files);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of importsOf(file, known)) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return found.map((cycle) => cycle.map((file) => relative(root, file)));
}

describe('the imports of src/', () => {
  it('form no cycle', () => {
    const files = sources(srcDir);
    expect(files.length).toBeGreaterThan(200);
    expect(cycles(files)).toEqual([]);
  });
});
