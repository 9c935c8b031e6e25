// Frame painting: Ink renders each frame into a string (debug mode, into a
// sink), and this painter writes only the lines that changed, at absolute
// positions, inside a synchronized update. The frame is never taller than the
// terminal, so nothing scrolls and nothing needs clearing: no flicker.

const SYNC_BEGIN = '\x1b[?2026h';
const SYNC_END = '\x1b[?2026l';
const CLEAR_SCREEN = '\x1b[2J';
/** Erase the whole line first: erasing after a full-width line would eat its last cell. */
const ERASE_LINE = '\x1b[2K';
const RESET = '\x1b[0m';

function moveTo(row: number): string {
  return `\x1b[${row + 1};1H`;
}

export class ScreenPainter {
  private previous: string[] = [];

  constructor(private readonly write: (data: string) => void) {}

  /** Forget what is on screen (after a resize) so the next frame repaints fully. */
  invalidate(): void {
    this.previous = [];
    this.write(CLEAR_SCREEN);
  }

  paint(frame: string, rows: number): number {
    const lines = frame.split('\n').slice(0, rows);
    while (lines.length < rows) lines.push('');
    let out = '';
    let changed = 0;
    for (let row = 0; row < rows; row++) {
      const line = lines[row] ?? '';
      if (this.previous[row] === line) continue;
      out += moveTo(row) + ERASE_LINE + line + RESET;
      changed++;
    }
    this.previous = lines;
    if (changed > 0) this.write(SYNC_BEGIN + out + SYNC_END);
    return changed;
  }
}
