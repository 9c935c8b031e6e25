import type { ReadStream, WriteStream } from 'node:tty';

// Terminal control sequences, named.
const ALT_SCREEN_ON = '\x1b[?1049h';
const ALT_SCREEN_OFF = '\x1b[?1049l';
const CURSOR_HIDE = '\x1b[?25l';
const CURSOR_SHOW = '\x1b[?25h';
const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';
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
}

/**
 * Puts the real terminal into Grove's mode: raw input, alternate screen,
 * bracketed paste, kitty keyboard flags, hidden cursor.
 */
export function setupTerminal(stdin: ReadStream, stdout: WriteStream): Terminal {
  let restored = false;
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  stdout.write(ALT_SCREEN_ON + CURSOR_HIDE + BRACKETED_PASTE_ON + KITTY_PUSH + KITTY_QUERY);

  const restore = (): void => {
    if (restored) return;
    restored = true;
    try {
      stdout.write(ATTRIBUTES_RESET + KITTY_POP + BRACKETED_PASTE_OFF + CURSOR_SHOW + ALT_SCREEN_OFF);
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

  return {
    get columns() {
      return stdout.columns || 80;
    },
    get rows() {
      return stdout.rows || 24;
    },
    write(data) {
      if (!restored) stdout.write(data);
    },
    onData(listener) {
      stdin.on('data', (chunk: string | Buffer) => listener(typeof chunk === 'string' ? chunk : chunk.toString('utf8')));
    },
    onResize(listener) {
      stdout.on('resize', () => listener(stdout.columns || 80, stdout.rows || 24));
    },
    restore,
  };
}
