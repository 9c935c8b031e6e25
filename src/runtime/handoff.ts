import type { TerminalHandoff } from '../app/ports.js';
import type { Terminal } from './terminal.js';

export interface HandoffDeps {
  readonly terminal: Terminal;
  /** The program for a tool: the shell, or the editor (opened on `.`); throws, with what to do, when there is none. */
  readonly commandFor: (tool: 'shell' | 'editor') => {
    readonly command: string;
    readonly args: readonly string[];
  };
  /** Repaints every line on the next frame (the other program drew over the screen). */
  readonly invalidate: () => void;
  /** Makes the loop draw again (a new snapshot), at the terminal's current size. */
  readonly redraw: (columns: number, rows: number) => void;
  /** Runs a program with the terminal; resolves with its exit code. */
  readonly runInteractive: (
    command: string,
    args: readonly string[],
    cwd: string,
  ) => Promise<{ exitCode: number; error: string | null }>;
  /** Opens a program in a new tmux window (Grove runs inside tmux); null outside tmux. */
  readonly openTmuxWindow:
    ((command: string, args: readonly string[], cwd: string) => Promise<void>) | null;
}

/**
 * Gives the terminal to a shell or an editor and takes it back: Grove leaves
 * the alternate screen and raw mode, the program runs with the terminal,
 * and when it exits Grove enters them again and redraws every line. Inside
 * tmux the program opens in a new tmux window instead and Grove goes on.
 */
export function createHandoff(deps: HandoffDeps): TerminalHandoff {
  let busy = false;
  return {
    async open(tool, cwd) {
      const { command, args } = deps.commandFor(tool);
      if (deps.openTmuxWindow) {
        await deps.openTmuxWindow(command, args, cwd);
        return { waited: false, exitCode: null, command };
      }
      if (busy) throw new Error('Another program has the terminal.');
      busy = true;
      deps.terminal.suspend();
      try {
        const result = await deps.runInteractive(command, args, cwd);
        if (result.error) throw new Error(`${command} could not start: ${result.error}`);
        return { waited: true, exitCode: result.exitCode, command };
      } finally {
        deps.terminal.resume();
        busy = false;
        deps.invalidate();
        deps.redraw(deps.terminal.columns, deps.terminal.rows);
      }
    },
  };
}
