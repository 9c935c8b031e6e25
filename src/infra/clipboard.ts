// The system clipboard, through clipboardy (pbcopy on macOS, xsel or
// wl-copy on Linux, the Windows clipboard on Windows and WSL). Loaded on
// first use so start-up never pays for it. Where no clipboard tool can be
// reached (over SSH, in tmux without X), the text goes to the terminal as an
// OSC 52 sequence, through the runtime's terminal writer.
import type * as clipboardy from 'clipboardy';
import { importExternal } from './external-import.js';

export interface Clipboard {
  /** Puts text on the clipboard; resolves with how (for the notice), rejects with a readable reason. */
  copy(text: string): Promise<string>;
}

/** OSC 52 "set the clipboard selection" (c), base64 text, BEL-terminated. */
export function osc52(text: string): string {
  return `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;
}

/** The same, wrapped in tmux's DCS passthrough (ESC doubled) for a tmux that passes it on. */
export function tmuxPassthrough(sequence: string): string {
  return `\x1bPtmux;${sequence.split('\x1b').join('\x1b\x1b')}\x1b\\`;
}

/** True when no desktop clipboard can be reached from here (Linux without a display). */
function noDisplay(env: NodeJS.ProcessEnv): boolean {
  return process.platform === 'linux' && !env['DISPLAY'] && !env['WAYLAND_DISPLAY'];
}

/**
 * `terminal` writes to the terminal Grove draws on (the OSC 52 fallback);
 * without it a failing clipboard tool is an error.
 */
export function createClipboard(
  terminal?: (data: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Clipboard {
  const viaTerminal = (text: string): string => {
    if (!terminal) throw new Error('no clipboard is reachable from this terminal');
    const sequence = osc52(text);
    terminal(sequence);
    // tmux takes the plain sequence with `set-clipboard on`, the wrapped one with `allow-passthrough on`.
    if (env['TMUX']) terminal(tmuxPassthrough(sequence));
    return 'OSC 52 (the terminal sets the clipboard)';
  };
  return {
    async copy(text) {
      if (terminal && noDisplay(env)) return viaTerminal(text);
      const { default: board } = await importExternal<typeof clipboardy>('clipboardy');
      try {
        await board.write(text);
        return 'the system clipboard';
      } catch (error) {
        if (terminal) return viaTerminal(text);
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new Error(`no clipboard is reachable from this terminal (${reason})`);
      }
    },
  };
}
