// How Grove tells a person that a session needs them, outside its own
// screen: the terminal bell, terminal notifications (OSC 9 and OSC 777)
// written through the runtime's terminal writer, and a desktop notification
// (notify-send on Linux, osascript on macOS) where one is available; and a
// webhook POST (the settings' URL), claimed once per item across every Grove
// process of one GROVE_HOME.
import { createHash } from 'node:crypto';
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sanitizeLine } from '../domain/sanitize.js';
import type { WebhookRequest } from '../domain/webhook.js';
import { grovePaths } from './paths.js';
import { makePrivateDir } from './private-files.js';
import { which } from './agent/detect.js';
import { tmuxPassthrough } from './clipboard.js';
import { runTool } from './exec.js';

export interface Notifier {
  /** BEL: the terminal rings or flags the window. */
  bell(): void;
  /** OSC 9 (iTerm2, kitty, WezTerm, Windows Terminal) and OSC 777 (foot, Ghostty, urxvt) notifications. */
  terminal(title: string, body: string): void;
  /** A desktop notification; resolves false when no tool is available. Never rejects. */
  desktop(title: string, body: string): Promise<boolean>;
  /**
   * POSTs to a webhook, giving up after WEBHOOK_TIMEOUT_MS; resolves with the
   * answer's status (0: no answer) and its Retry-After in ms. Never rejects.
   */
  post(url: string, request: WebhookRequest): Promise<WebhookAnswer>;
  /** True for the first caller with `key` among every Grove process of this GROVE_HOME (a file made exclusively). */
  claim(key: string): boolean;
}

export interface WebhookAnswer {
  readonly status: number;
  readonly retryAfterMs: number | null;
}

/** The longest one POST may take. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Claims older than this are removed when the first claim of a process is made. */
const CLAIM_KEEP_MS = 7 * 24 * 3600_000;

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

async function post(url: string, request: WebhookRequest): Promise<WebhookAnswer> {
  try {
    const answer = await fetch(url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'error',
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    await answer.body?.cancel().catch(() => {});
    return {
      status: answer.status,
      retryAfterMs: retryAfterMs(answer.headers.get('retry-after'), Date.now()),
    };
  } catch {
    return { status: 0, retryAfterMs: null };
  }
}

function claimer(env: NodeJS.ProcessEnv): (key: string) => boolean {
  const dir = join(grovePaths(env).home, 'webhook');
  let pruned = false;
  return (key) => {
    makePrivateDir(dir);
    if (!pruned) {
      // Best effort: a claim file left over costs 0 bytes.
      pruned = true;
      const old = Date.now() - CLAIM_KEEP_MS;
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {
        // Not made: the claim below says so.
      }
      for (const name of names) {
        const file = join(dir, name);
        try {
          if (statSync(file).mtimeMs < old) rmSync(file, { force: true });
        } catch {
          // Removed by another process meanwhile.
        }
      }
    }
    const name = createHash('sha256').update(key).digest('hex').slice(0, 32);
    try {
      writeFileSync(join(dir, name), '', { flag: 'wx', mode: 0o600 });
      return true;
    } catch {
      return false;
    }
  };
}

/**
 * Text for inside an OSC sequence: one line, control characters made
 * visible (never a BEL or ESC that would end or start a sequence), and no
 * `;` (OSC 777 separates its fields with it), at most 200 characters.
 */
export function oscText(text: string): string {
  // sanitizeLine already shows control characters as placeholders; C0/C1 bytes left become spaces.
  const line = sanitizeLine(text)
    // eslint-disable-next-line no-control-regex -- the point is to find control characters
    .replace(/[\x00-\x1f\x7f-\x9f]/g, ' ')
    .replace(/;/g, ',');
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** OSC 9 "post a notification", BEL-terminated. */
export function osc9(body: string): string {
  return `\x1b]9;${oscText(body)}\x07`;
}

/** OSC 777 "notify;title;body", BEL-terminated. */
export function osc777(title: string, body: string): string {
  return `\x1b]777;notify;${oscText(title)};${oscText(body)}\x07`;
}

/** A string literal for AppleScript ("…" with \ and " escaped). */
function appleScriptString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function createNotifier(
  write: (data: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Notifier {
  const run = async (file: string, args: readonly string[]): Promise<boolean> =>
    (await runTool(file, args, { env, timeoutMs: 5000 })).code === 0;
  return {
    post,
    claim: claimer(env),
    bell() {
      write('\x07');
    },
    terminal(title, body) {
      const sequences = osc9(body) + osc777(title, body);
      write(sequences);
      // tmux passes OSC sequences on only when wrapped (with allow-passthrough on).
      if (env['TMUX']) write(tmuxPassthrough(sequences));
    },
    async desktop(title, body) {
      const cleanTitle = oscText(title);
      const cleanBody = oscText(body);
      if (process.platform === 'darwin') {
        const osascript = which('osascript', env) ?? which('osascript', { PATH: '/usr/bin' });
        if (!osascript) return false;
        return run(osascript, [
          '-e',
          `display notification ${appleScriptString(cleanBody)} with title ${appleScriptString(cleanTitle)}`,
        ]);
      }
      const notifySend = which('notify-send', env);
      if (!notifySend) return false;
      if (
        process.platform === 'linux' &&
        !env['DISPLAY'] &&
        !env['WAYLAND_DISPLAY'] &&
        !env['DBUS_SESSION_BUS_ADDRESS']
      )
        return false;
      return run(notifySend, ['--app-name=Grove', '--', cleanTitle, cleanBody]);
    },
  };
}
