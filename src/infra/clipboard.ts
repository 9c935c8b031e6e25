// The system clipboard, through clipboardy (pbcopy on macOS, xsel or
// wl-copy on Linux, the Windows clipboard on Windows and WSL). Loaded on
// first use so start-up never pays for it.

export interface Clipboard {
  /** Puts text on the system clipboard; rejects with a readable reason. */
  copy(text: string): Promise<void>;
}

export function createClipboard(): Clipboard {
  return {
    async copy(text) {
      const { default: board } = await import('clipboardy');
      try {
        await board.write(text);
      } catch (error) {
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new Error(`no clipboard is reachable from this terminal (${reason})`);
      }
    },
  };
}
