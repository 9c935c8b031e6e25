// A list row is drawn as one Text whose pieces Grove colours itself (paint),
// not a Text per piece: the colours must be the theme's, the text must be
// sanitized, and every way of turning colour off must turn these off too.
import { createElement } from 'react';
import { renderToString } from 'ink';
import { describe, expect, it } from 'vitest';
import { Root } from '../../src/ui/Root.js';
import { paint } from '../../src/ui/text.js';
import { createTheme } from '../../src/ui/theme.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

const ESC = '\u001b';

describe('paint', () => {
  it.each([
    ['cyan', false, `${ESC}[36mtext${ESC}[39m`],
    ['gray', false, `${ESC}[90mtext${ESC}[39m`],
    ['magentaBright', false, `${ESC}[95mtext${ESC}[39m`],
    ['cyan', true, `${ESC}[1m${ESC}[36mtext${ESC}[39m${ESC}[22m`],
    [undefined, true, `${ESC}[1mtext${ESC}[22m`],
    [undefined, false, 'text'],
    ['not-a-colour', false, 'text'],
  ] as const)('%s (bold %s) gives what ink gives', (color, bold, expected) => {
    expect(paint('text', color, bold)).toBe(expected);
  });

  it('gives nothing for nothing, and sanitizes what it paints', () => {
    expect(paint('', 'cyan')).toBe('');
    const painted = paint(`title${ESC}[2J${ESC}]52;c;eA==\u0007`, 'cyan');
    expect(painted.startsWith(`${ESC}[36m`)).toBe(true);
    expect(painted).not.toContain(`${ESC}[2J`);
    expect(painted).not.toContain(`${ESC}]52`);
  });
});

describe('a list row', () => {
  const sessions = [
    makeSession('Queued', { id: 'q', title: 'Queued work' }),
    makeSession('Done', { id: 'd', title: `Done ${ESC}[31mwork` }),
  ];
  const state = appState({
    sessions,
    selectedSessionId: 'q',
    git: { conflicts: ['d'], overlaps: {} } as never,
  });
  const row = (env: Record<string, string | undefined>, title: string): string =>
    renderToString(createElement(Root, { state, theme: createTheme(env), home: undefined }), {
      columns: state.columns,
    })
      .split('\n')
      .find((line) => line.includes(title)) ?? '';

  it('colours its status, badges and counts with the theme', () => {
    expect(row({}, 'Queued work')).toContain(`${ESC}[34mQueued`);
    const done = row({}, 'Done');
    expect(done).toContain(`${ESC}[31m [merge conflict]`);
    expect(done).toContain(`${ESC}[32mDone`);
    // The agent's title cannot colour itself.
    expect(done).not.toContain(`Done ${ESC}[31mwork`);
  });

  // Colour codes only: the selected row is drawn inverse by ink itself,
  // whenever chalk finds colour support (a CI runner, for one).
  const COLOUR = new RegExp(`${ESC}\\[(?:3[0-8]|9[0-7])[;m]`);

  it.each<Record<string, string | undefined>>([
    { NO_COLOR: '1' },
    { FORCE_COLOR: '0' },
    { TERM: 'dumb' },
  ])('has no colour with %o', (env) => {
    expect(row({}, 'Done')).toMatch(COLOUR);
    expect(row(env, 'Queued work')).not.toMatch(COLOUR);
    expect(row(env, 'Done')).not.toMatch(COLOUR);
  });
});
