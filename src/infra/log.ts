import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

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
  for (const secret of extraSecrets) if (secret.length >= 8) out = out.split(secret).join('[redacted]');
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, (_m, prefix: string) => (prefix.endsWith(' ') ? `${prefix}[redacted]` : '[redacted]'));
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

export function createFileLogger(file: string, secrets: () => readonly string[] = () => []): Logger {
  let ready = false;
  return {
    log(level, message, detail) {
      try {
        if (!ready) {
          mkdirSync(dirname(file), { recursive: true });
          ready = true;
        }
        const line = `${new Date().toISOString()} ${level.toUpperCase()} ${message}${describe(detail)}\n`;
        appendFileSync(file, redactSecrets(line, secrets()));
      } catch {
        // Logging must never take the app down.
      }
    },
  };
}

export const silentLogger: Logger = { log() {} };
