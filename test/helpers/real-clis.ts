import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const FIXTURE = resolve(import.meta.dirname, '..', 'fixtures', 'real-clis', 'node_modules');

/** Paths of the pinned real agent CLIs (test/fixtures/real-clis), or null when not installed. */
export function realCliPath(name: 'claude' | 'codex' | 'gemini'): string | null {
  const candidates: Record<typeof name, string[]> = {
    claude: [join(FIXTURE, '@anthropic-ai', 'claude-code-linux-x64', 'claude'), join(FIXTURE, '.bin', 'claude')],
    codex: [join(FIXTURE, '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex'), join(FIXTURE, '.bin', 'codex')],
    gemini: [join(FIXTURE, '.bin', 'gemini')],
  };
  return candidates[name].find((p) => existsSync(p)) ?? null;
}

/** The folder with the fixture's `claude`, `codex` and `gemini` commands (for PATH). */
export const REAL_CLI_BIN = join(FIXTURE, '.bin');
