// A session that runs on a host (issue 24) says so in the session list: a
// badge with the host's name after its title, shortened and then left out
// first when the row is narrow, so the title keeps its cells.
import { createElement } from 'react';
import { renderToString } from 'ink';
import { describe, expect, it } from 'vitest';
import { Root } from '../../src/ui/Root.js';
import { fitBadges, rowBadges, type RowFacts } from '../../src/ui/list-row.js';
import { createTheme } from '../../src/ui/theme.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

const FACTS: RowFacts = {
  conflict: false,
  overlaps: undefined,
  held: false,
  waiting: null,
  variant: null,
  needsYou: false,
  marked: false,
};

describe('the host badge', () => {
  it('names the host of a session on one, and nothing for a session here', () => {
    const remote = makeSession('Review', { id: 'r', title: 'On the build box', host: 'build' });
    const local = makeSession('Review', { id: 'l', title: 'Here' });
    expect(rowBadges(remote, FACTS).map((b) => b.full)).toEqual([' [@build]']);
    expect(rowBadges(local, FACTS)).toEqual([]);
  });

  it('is shortened, then left out, before any other badge when the row is narrow', () => {
    const session = makeSession('Question', {
      id: 'q',
      host: 'gpu-box',
      questions: [{ text: 'Which?', options: [] }],
    });
    const badges = rowBadges(session, FACTS);
    expect(fitBadges(badges, 40)).toEqual([' [1 question]', ' [@gpu-box]']);
    expect(fitBadges(badges, 17)).toEqual([' [1 question]', ' [@]']);
    expect(fitBadges(badges, 13)).toEqual([' [1?]', ' [@]']);
    expect(fitBadges(badges, 8)).toEqual([' [1?]', '']);
  });

  it('shows in the session list at 120 columns', () => {
    const state = appState({
      sessions: [makeSession('Review', { id: 'r', title: 'On the build box', host: 'build' })],
      selectedSessionId: 'r',
      columns: 120,
    });
    const frame = renderToString(
      createElement(Root, { state, theme: createTheme({ NO_COLOR: '1' }), home: undefined }),
      { columns: 120 },
    );
    const line = frame.split('\n').find((l) => l.includes('On the build box')) ?? '';
    expect(line).toContain('[@build]');
  });
});
