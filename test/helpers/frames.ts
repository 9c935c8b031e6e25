import { stripVTControlCharacters } from 'node:util';
import { join } from 'node:path';
import { createElement } from 'react';
import { renderToString } from 'ink';
import { afterAll, beforeAll, expect } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import { renderMarkdown } from '../../src/ui/markdown.js';
import { Root } from '../../src/ui/Root.js';
import { wrapPlain } from '../../src/ui/text.js';
import { createTheme } from '../../src/ui/theme.js';
import { setAnswerRenderer } from '../../src/ui/transcript-lines.js';
import { cellWidth } from './render.js';

// Frame snapshots (issue 23, item 5): the whole screen of a page, rendered
// through `ink` (node_modules/ink is the fork in packages/ink, what the bundle
// ships), stored as plain text in test/unit/__snapshots__/frames/ so a layout
// change shows up in review as a diff of the screen. Update them after a
// deliberate change with `npx vitest run -u test/unit/frames-*.test.ts`.

/** The sizes every page is drawn at: the classic terminal, a roomy one, and a narrow one. */
export const FRAME_SIZES = [
  [80, 24],
  [120, 40],
  [60, 20],
] as const;

/** Where the frames are kept, one `.txt` file per page and size. */
export const FRAMES_DIR = join(import.meta.dirname, '..', 'unit', '__snapshots__', 'frames');

/** The home folder the footer shortens paths against (`~/demo`). */
const HOME = '/home/dev';

/** A frame as the terminal gets it: `raw` with escape sequences, `lines` without (trailing spaces trimmed). */
export interface ScreenFrame {
  readonly raw: string;
  readonly lines: readonly string[];
}

/** Draws the whole screen (Root) of `state` with `env`'s colours (NO_COLOR and the like). */
export function drawScreen(
  state: AppState,
  env: Record<string, string | undefined> = {},
): ScreenFrame {
  const raw = renderToString(createElement(Root, { state, theme: createTheme(env), home: HOME }), {
    columns: state.columns,
  });
  const lines = stripVTControlCharacters(raw)
    .split('\n')
    .map((line) => line.trimEnd());
  return { raw, lines };
}

/** The lines of `lines` wider than `columns` terminal cells (a CJK character or an emoji takes two). */
export function linesWiderThan(lines: readonly string[], columns: number): string[] {
  return lines.filter((line) => cellWidth(line) > columns);
}

/**
 * Draws `state` and checks the frame: exactly as tall as the terminal, no line
 * wider, and the same text as `frames/NAME.COLSxROWS.txt`.
 */
export async function expectFrame(name: string, state: AppState): Promise<void> {
  const { lines } = drawScreen(state);
  expect(lines).toHaveLength(state.rows);
  expect(linesWiderThan(lines, state.columns)).toEqual([]);
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot(
    join(FRAMES_DIR, `${name}.${state.columns}x${state.rows}.txt`),
  );
}

/** Answers drawn as markdown, as the app draws them, for the tests of one file. */
export function withMarkdownAnswers(): void {
  beforeAll(() => setAnswerRenderer(renderMarkdown));
  afterAll(() => setAnswerRenderer((text, width) => wrapPlain(text, width)));
}
