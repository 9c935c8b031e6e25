import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { render, type Instance } from 'ink';
import type { AppState } from '../app/state.js';
import { Root } from '../ui/Root.js';
import type { Theme } from '../ui/theme.js';
import { ScreenPainter } from './screen.js';

/**
 * Ink renders into this sink (debug mode: one full frame per write) instead
 * of the terminal; the painter then writes only the lines that changed.
 */
class FrameSink extends EventEmitter {
  columns = 80;
  rows = 24;
  readonly isTTY = false;
  constructor(private readonly onFrame: (frame: string) => void) {
    super();
  }
  write(frame: string): boolean {
    this.onFrame(frame);
    return true;
  }
}

export interface Renderer {
  draw(state: AppState): void;
  /** After a resize: repaint everything on the next draw. */
  invalidate(): void;
  unmount(): void;
}

export function createRenderer(
  write: (data: string) => void,
  theme: Theme,
  home: string | undefined,
): Renderer {
  const painter = new ScreenPainter(write);
  let rows = 24;
  // ink draws only after a render that changed the tree (xtask/dependency-patches.mjs);
  // otherwise the frame on screen still holds. Unless the screen was cleared
  // since (invalidate, on a resize) and the tree came out the same: a resize
  // and its reverse reduced before one draw. Then the last frame is painted
  // again, in full.
  let lastFrame: string | null = null;
  let drawn = false;
  let cleared = false;
  const sink = new FrameSink((frame) => {
    lastFrame = frame;
    drawn = true;
    painter.paint(frame, rows);
  });
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  let instance: Instance | null = null;
  return {
    draw(state) {
      rows = state.rows;
      sink.columns = state.columns;
      sink.rows = state.rows;
      const element = <Root state={state} theme={theme} home={home} />;
      drawn = false;
      if (instance) instance.rerender(element);
      else
        instance = render(element, {
          stdout: sink as unknown as NodeJS.WriteStream,
          stderr: sink as unknown as NodeJS.WriteStream,
          stdin: stdin as unknown as NodeJS.ReadStream,
          debug: true,
          exitOnCtrlC: false,
          patchConsole: false,
        });
      if (!drawn && cleared && lastFrame !== null) painter.paint(lastFrame, rows);
      cleared = false;
    },
    invalidate() {
      painter.invalidate();
      cleared = true;
    },
    unmount() {
      instance?.unmount();
      instance = null;
    },
  };
}
