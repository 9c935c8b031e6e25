// The system clipboard, through clipboardy (pbcopy on macOS, xsel or
// wl-copy on Linux, the Windows clipboard on Windows and WSL). Loaded on
// first use so start-up never pays for it. Inside tmux the text goes into
// tmux's own paste buffer (`tmux load-buffer -w -`, which with tmux's default
// `set-clipboard external` also passes it on to the terminal's clipboard):
// tmux drops an OSC 52 sent by a program unless `set-clipboard on`. Where no
// clipboard tool can be reached (over SSH, tmux gone), the text goes to the
// terminal as an OSC 52 sequence, through the runtime's terminal writer.
import type * as clipboardy from 'clipboardy';
import { failureOf, runTool } from './exec.js';
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

/** `tmux ARGS` with `input` on stdin, talking to the tmux Grove runs in ($TMUX). */
async function tmuxWithInput(
  args: readonly string[],
  input: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ok: boolean; why: string }> {
  const run = await runTool('tmux', args, { env, input, timeoutMs: 5000 });
  return { ok: run.code === 0, why: failureOf(run) };
}

/**
 * Puts text in the paste buffer of the tmux Grove runs in; with `-w` (tmux
 * 3.2+) tmux also sends it to the terminal's clipboard. Null when tmux
 * cannot take it (not on PATH, its server gone).
 */
async function viaTmuxBuffer(
  text: string,
  env: NodeJS.ProcessEnv,
): Promise<'buffer and terminal' | 'buffer' | null> {
  const both = await tmuxWithInput(['load-buffer', '-w', '-'], text, env);
  if (both.ok) return 'buffer and terminal';
  // An older tmux has no -w ("usage: load-buffer …").
  if (!/usage|unknown flag/i.test(both.why)) return null;
  return (await tmuxWithInput(['load-buffer', '-'], text, env)).ok ? 'buffer' : null;
}

const TMUX_BUFFER = "tmux's paste buffer (prefix ])";
const VIA_TMUX = {
  'buffer and terminal': `${TMUX_BUFFER} and the terminal's clipboard`,
  buffer: `${TMUX_BUFFER} only (tmux 3.2+ also sets the terminal's)`,
} as const;

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
      const tmux = env['TMUX'] ? await viaTmuxBuffer(text, env) : null;
      if (noDisplay(env)) {
        if (tmux !== null) return VIA_TMUX[tmux];
        if (terminal) return viaTerminal(text);
      }
      const { default: board } = await importExternal<typeof clipboardy>('clipboardy');
      try {
        await board.write(text);
        return tmux === null ? 'the system clipboard' : `the system clipboard and ${TMUX_BUFFER}`;
      } catch (error) {
        if (tmux !== null) return VIA_TMUX[tmux];
        if (terminal) return viaTerminal(text);
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new Error(`no clipboard is reachable from this terminal (${reason})`);
      }
    },
  };
}
