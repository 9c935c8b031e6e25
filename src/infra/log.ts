import { appendFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { makePrivateDir, makePrivateFile } from './private-files.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The app's only log: a file. Nothing is ever logged to the screen. */
export interface Logger {
  log(level: LogLevel, message: string, detail?: unknown): void;
}

const SECRET_PATTERNS: readonly RegExp[] = [
  /\b(gh[pousr]_[A-Za-z0-9]{20,})\b/g,
  /\b(github_pat_[A-Za-z0-9_]{20,})\b/g,
  /(authorization:\s*(?:bearer|token)\s+)\S+/gi,
];

/** Removes anything that looks like a credential before it reaches the log. */
export function redactSecrets(text: string, extraSecrets: readonly string[] = []): string {
  let out = text;
  for (const secret of extraSecrets)
    if (secret.length >= 8) out = out.split(secret).join('[redacted]');
  for (const pattern of SECRET_PATTERNS)
    out = out.replace(pattern, (_m, prefix: string) =>
      prefix.endsWith(' ') ? `${prefix}[redacted]` : '[redacted]',
    );
  return out;
}

function describe(detail: unknown): string {
  if (detail === undefined) return '';
  if (detail instanceof Error) return ` ${detail.stack ?? detail.message}`;
  try {
    return ` ${JSON.stringify(detail)}`;
  } catch {
    return ' [unserialisable detail]';
  }
}

export function createFileLogger(
  file: string,
  secrets: () => readonly string[] = () => [],
): Logger {
  let ready = false;
  return {
    log(level, message, detail) {
      try {
        if (!ready) {
          // Private (0700 folder, 0600 file): the log quotes prompts and command output.
          makePrivateDir(dirname(file));
          makePrivateFile(file);
          ready = true;
        }
        const line = `${new Date().toISOString()} ${level.toUpperCase()} ${message}${describe(detail)}\n`;
        appendFileSync(file, redactSecrets(line, secrets()), { mode: 0o600 });
      } catch {
        // Logging must never take the app down.
      }
    },
  };
}

export const silentLogger: Logger = { log() {} };
