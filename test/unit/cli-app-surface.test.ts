import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The headless CLI asks the app for work through its surface in src/app/ (AppIntents,
// AwaitedIntents, AppQueries), the one the TUI's services also stand behind; it never
// reaches into the controller's services (`controller.sessions`, `review.ctx`, `workers`).
// headless.ts builds the Controller and hands the context its surface; a command file
// never names the controller.

const cliDir = join(import.meta.dirname, '..', '..', 'src', 'cli');

/** The source without comments, so a comment may name what the code must not do. */
function code(file: string): string {
  return readFileSync(join(cliDir, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** What the code says about the controller (string literals, such as import paths, left out). */
const RULES: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: 'a member of the controller', pattern: /\bcontroller\s*(?:\?\.|\.|\[)/ },
  { what: "the context's controller", pattern: /[\w)\]]\s*\.\s*controller\b/ },
  { what: 'destructuring the controller', pattern: /}\s*=\s*[\w.]*\bcontroller\b/ },
  { what: "a service's internal context (review.ctx)", pattern: /[\w)\]]\s*\.\s*ctx\b/ },
];

/** The modules a file imports, as written. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)'([^']+)'/g)].map((m) => m[1] ?? '');
}

function reaches(file: string): string[] {
  const text = code(file);
  const statements = text.replace(/'(?:[^'\\\n]|\\.)*'/g, "''");
  const found = RULES.filter((rule) => rule.pattern.test(statements)).map((rule) => rule.what);
  for (const spec of importsOf(text)) {
    // The review services take the review service's internal context.
    if (spec.startsWith('../app/services/review/')) found.push(`an import of ${spec}`);
    // Only the screenless context builds the controller.
    if (spec === '../app/controller.js' && file !== 'headless.ts')
      found.push('an import of the controller');
  }
  return found;
}

describe('the headless CLI (src/cli/)', () => {
  it('asks the app only through its surface, never the controller’s services', () => {
    const files = readdirSync(cliDir).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.flatMap((file) => reaches(file).map((what) => `${file}: ${what}`));
    expect(offenders).toEqual([]);
  });

  it('would see a reach into the controller', () => {
    const rule = (text: string): boolean => RULES.some((r) => r.pattern.test(text));
    expect(rule('await ctx.controller.sessions.whenReady(id);')).toBe(true);
    expect(rule('const { workers } = ctx.controller;')).toBe(true);
    expect(rule('workAtRisk(review.ctx, session)')).toBe(true);
    expect(importsOf("import { cancelSession } from '../app/services/review/cancel.js';")).toEqual([
      '../app/services/review/cancel.js',
    ]);
    expect(rule('await ctx.intents.cancelSession(session.id);')).toBe(false);
    expect(rule('{ ...ctx.app.state.settings }')).toBe(false);
  });
});
