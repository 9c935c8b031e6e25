// How Grove tells a person that a session needs them, outside its own
// screen: the terminal bell, terminal notifications (OSC 9 and OSC 777)
// written through the runtime's terminal writer, and a desktop notification
// (notify-send on Linux, osascript on macOS) where one is available.
import { sanitizeLine } from '../domain/sanitize.js';
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
