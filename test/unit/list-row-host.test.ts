// A session that runs on a host (issue 24) says so in the session list: a
// badge with the host's name after its title, shortened and then left out
// first when the row is narrow, so the title keeps its cells.
import { createElement } from 'react';
import { renderToString } from 'ink';
import { describe, expect, it } from 'vitest';
import { isReconnectingLine, reconnectingLine } from '../../src/domain/reconnect.js';
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

  it('says reconnecting while the host cannot be reached, in the list at 120 columns', () => {
    const session = makeSession('InProgress', {
      id: 'r',
      title: 'On the build box',
      host: 'build',
    });
    const line = reconnectingLine('build', 4, 7000);
    expect(isReconnectingLine(line)).toBe(true);
    expect(isReconnectingLine('Working (reconnected to build)')).toBe(false);
    expect(isReconnectingLine('Thinking…')).toBe(false);
    const badges = rowBadges(session, { ...FACTS, reconnecting: true });
    expect(badges.map((b) => b.full)).toEqual([' [@build reconnecting]']);
    expect(fitBadges(badges, 13)).toEqual([' [@…]']);
    const frame = (progress: string): string => {
      const state = appState({
        sessions: [session],
        selectedSessionId: 'r',
        columns: 120,
        progress: { r: progress },
      });
      const out = renderToString(
        createElement(Root, { state, theme: createTheme({ NO_COLOR: '1' }), home: undefined }),
        { columns: 120 },
      );
      return out.split('\n').find((l) => l.includes('On the build box')) ?? '';
    };
    expect(frame(line)).toContain('[@build reconnecting]');
    expect(frame('Working (reconnected to build)')).toContain('[@build]');
    expect(frame('Working (reconnected to build)')).not.toContain('reconnecting');
  });
});
