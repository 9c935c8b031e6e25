import type { ReadStream, WriteStream } from 'node:tty';

// Terminal control sequences, named.
const ALT_SCREEN_ON = '\x1b[?1049h';
const ALT_SCREEN_OFF = '\x1b[?1049l';
const CURSOR_HIDE = '\x1b[?25l';
const CURSOR_SHOW = '\x1b[?25h';
const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';
/** Focus reporting: the terminal sends ESC [ I / ESC [ O when it gains / loses focus. */
const FOCUS_ON = '\x1b[?1004h';
const FOCUS_OFF = '\x1b[?1004l';
/** Kitty keyboard protocol: push "disambiguate escape codes" (flag 1). */
const KITTY_PUSH = '\x1b[>1u';
/** Kitty keyboard protocol: ask for the current flags (the answer tells us it is supported). */
const KITTY_QUERY = '\x1b[?u';
/** Kitty keyboard protocol: pop our flags. */
const KITTY_POP = '\x1b[<u';
const ATTRIBUTES_RESET = '\x1b[0m';

export interface Terminal {
  readonly columns: number;
  readonly rows: number;
  write(data: string): void;
  onData(listener: (chunk: string) => void): void;
  onResize(listener: (columns: number, rows: number) => void): void;
  /** Restores the terminal. Safe to call any number of times, from anywhere. */
  restore(): void;
  /**
   * Hands the terminal to another program: leaves the alternate screen,
   * cooked mode, stops reading input; writes are dropped until `resume`.
   */
  suspend(): void;
  /** Takes the terminal back (raw mode, alternate screen); the caller redraws everything. */
  resume(): void;
  /** True between suspend and resume. */
  readonly suspended: boolean;
}

/**
 * Puts the real terminal into Grove's mode: raw input, alternate screen,
 * bracketed paste, focus reporting, kitty keyboard flags, hidden cursor.
 */
export function setupTerminal(stdin: ReadStream, stdout: WriteStream): Terminal {
  let restored = false;
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  stdout.write(
    ALT_SCREEN_ON + CURSOR_HIDE + BRACKETED_PASTE_ON + FOCUS_ON + KITTY_PUSH + KITTY_QUERY,
  );

  let suspended = false;
  const leave = (): void => {
    try {
      stdout.write(
        ATTRIBUTES_RESET +
          KITTY_POP +
          FOCUS_OFF +
          BRACKETED_PASTE_OFF +
          CURSOR_SHOW +
          ALT_SCREEN_OFF,
      );
    } catch {
      // The terminal may already be gone (SIGHUP).
    }
    try {
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
    } catch {
      // Same as above.
    }
  };
  const restore = (): void => {
    if (restored) return;
    restored = true;
    // A suspended terminal is already back in its normal state.
    if (!suspended) leave();
  };

  return {
    get columns() {
      return stdout.columns || 80;
    },
    get rows() {
      return stdout.rows || 24;
    },
    write(data) {
      if (!restored && !suspended) stdout.write(data);
    },
    onData(listener) {
      stdin.on('data', (chunk: string | Buffer) =>
        listener(typeof chunk === 'string' ? chunk : chunk.toString('utf8')),
      );
    },
    onResize(listener) {
      stdout.on('resize', () => listener(stdout.columns || 80, stdout.rows || 24));
    },
    restore,
    get suspended() {
      return suspended;
    },
    suspend() {
      if (restored || suspended) return;
      leave();
      suspended = true;
    },
    resume() {
      if (restored || !suspended) return;
      suspended = false;
      stdin.setRawMode(true);
      stdin.resume();
      // The flags were popped on suspend: push them again (no query: the answer is known).
      stdout.write(ALT_SCREEN_ON + CURSOR_HIDE + BRACKETED_PASTE_ON + FOCUS_ON + KITTY_PUSH);
    },
  };
}
