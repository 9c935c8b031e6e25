import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

const FIXTURE = resolve(import.meta.dirname, '..', 'fixtures', 'real-clis', 'node_modules');

/**
 * Path of a pinned real agent CLI (test/fixtures/real-clis). `npm test`
 * installs them first (xtask/real-clis.mjs); a missing one fails loudly.
 */
export function realCliPath(name: 'claude' | 'codex' | 'gemini'): string {
  const candidates: Record<typeof name, string[]> = {
    claude: [
      join(FIXTURE, '@anthropic-ai', 'claude-code-linux-x64', 'claude'),
      join(FIXTURE, '.bin', 'claude'),
    ],
    codex: [
      join(
        FIXTURE,
        '@openai',
        'codex-linux-x64',
        'vendor',
        'x86_64-unknown-linux-musl',
        'bin',
        'codex',
      ),
      join(FIXTURE, '.bin', 'codex'),
    ],
    gemini: [join(FIXTURE, '.bin', 'gemini')],
  };
  const found = candidates[name].find((p) => existsSync(p));
  if (!found)
    throw new Error(
      `The pinned ${name} CLI is not installed: run node xtask/real-clis.mjs (npm test does this first).`,
    );
  return found;
}

/** The folder with the fixture's `claude`, `codex` and `gemini` commands (for PATH). */
export const REAL_CLI_BIN = join(FIXTURE, '.bin');

/**
 * A PATH on which `name` is the only agent CLI (a folder in `dir` holding a
 * link to it, before the system PATH): Grove then picks it for every role.
 */
export function onlyCliPath(dir: string, name: 'claude' | 'codex' | 'gemini'): string {
  const bin = join(dir, `${name}-only`);
  mkdirSync(bin, { recursive: true });
  if (!existsSync(join(bin, name))) symlinkSync(realCliPath(name), join(bin, name));
  return `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`;
}
