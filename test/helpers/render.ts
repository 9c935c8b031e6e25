import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { createElement, type ReactElement } from 'react';
import { renderToString } from 'ink';
import { initialState, type AppState } from '../../src/app/state.js';
import type { Project } from '../../src/domain/project.js';
import { Root } from '../../src/ui/Root.js';
import { createTheme, type Theme } from '../../src/ui/theme.js';

// The middle layer of the test suite: the screen is a pure function of one
// AppState snapshot, so it is rendered here with Ink's own renderer, in
// milliseconds, instead of through the built binary in tmux.

/** One rendered screen, escape sequences removed. */
export interface Frame {
  /** The whole frame, lines joined with `\n`. */
  readonly text: string;
  /** The frame's lines, trailing spaces trimmed. */
  readonly lines: readonly string[];
}

export const testProject: Project = {
  id: 1,
  path: '/home/dev/demo',
  displayName: 'demo',
  createdAt: 0,
  lastOpenedAt: 0,
};

/** A snapshot with one active project and no sessions, adjusted by `overrides`. */
export function appState(overrides: Partial<AppState> = {}): AppState {
  const base = initialState({
    version: 'test',
    columns: 120,
    rows: 40,
    now: 0,
    tab: 'sessions',
    projects: [testProject],
    activeProjectId: testProject.id,
    sessions: overrides.sessions ?? [],
    settings: {},
  });
  return { ...base, ...overrides };
}

function toFrame(output: string): Frame {
  const lines = stripVTControlCharacters(output)
    .split('\n')
    .map((line) => line.trimEnd());
  return { text: lines.join('\n'), lines };
}

/** Renders any element at `columns` cells wide. */
export function renderElement(element: ReactElement, columns: number): Frame {
  return toFrame(renderToString(element, { columns }));
}

/** Renders the whole screen (Root) for a snapshot, at the snapshot's columns × rows. */
export function renderFrame(
  state: AppState,
  options: { theme?: Theme; home?: string } = {},
): Frame {
  const theme = options.theme ?? createTheme({});
  return renderElement(createElement(Root, { state, theme, home: options.home }), state.columns);
}

/** Cells a line takes in a terminal (a CJK character or an emoji takes two). */
export function cellWidth(line: string): number {
  return stringWidth(line);
}
