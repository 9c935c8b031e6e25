// Frame snapshots of the popups (help, confirmations, info, input) over the
// pages they open on, and the colour rules of a frame: NO_COLOR leaves no
// colour code in it, colour allowed puts the theme's in, and the layout is the
// same either way. Text in __snapshots__/frames/popup-*.txt; after a
// deliberate layout change: `npx vitest run -u test/unit/frames-popups.test.ts`.
import { createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import chalk, { type ChalkInstance } from 'chalk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffMode, type AppState } from '../../src/app/state.js';
import {
  cancelPopup,
  mergePopup,
  publishBranchPopup,
  resolveThreadsPopup,
} from '../../src/app/popups.js';
import { bufferFrom } from '../../src/domain/composer.js';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import { markdownRenderer, renderMarkdown } from '../../src/ui/markdown.js';
import { colourAllowed } from '../../src/ui/theme.js';
import { setAnswerRenderer } from '../../src/ui/transcript-lines.js';
import { FRAME_SIZES, drawScreen, expectFrame, withMarkdownAnswers } from '../helpers/frames.js';
import {
  CJK_TITLE,
  busyList,
  diffFiles,
  frameSession,
  listSessions,
  reviewThreads,
  sessionScreen,
} from '../helpers/frame-fixtures.js';

withMarkdownAnswers();

const ESC = '\u001b';
/** A foreground or background colour (SGR 30–38, 40–48, 90–97, 100–107); bold and inverse are not colour. */
const COLOUR = new RegExp(`${ESC}\\[(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]`);

const session = listSessions.find((s) => s.id === 'f1') ?? frameSession('Review', 1);
const wide = frameSession('Review', 2, { title: CJK_TITLE, branch: 'grove/修复登录' });

const withPopup = (state: AppState, popup: AppState['popup']): AppState => ({ ...state, popup });

describe.each(FRAME_SIZES)('the popups at %i×%i', (columns, rows) => {
  it('draws the help of the sessions list', async () => {
    await expectFrame('popup-help-list', withPopup(busyList(columns, rows), { kind: 'help' }));
  });

  it('draws the help of the session view, scrolled', async () => {
    await expectFrame(
      'popup-help-session',
      withPopup(sessionScreen(columns, rows, session), { kind: 'help', scroll: 3 }),
    );
  });

  it('draws the help of the diff view', async () => {
    await expectFrame(
      'popup-help-diff',
      withPopup(
        {
          ...busyList(columns, rows),
          mode: diffMode('f1'),
          diff: {
            sessionId: 'f1',
            loading: false,
            error: null,
            files: diffFiles,
            added: 6,
            deleted: 2,
          },
        },
        { kind: 'help' },
      ),
    );
  });

  it('draws the quit confirmation over the list', async () => {
    await expectFrame(
      'popup-quit',
      withPopup(busyList(columns, rows), {
        kind: 'confirm',
        title: 'Quit Grove?',
        lines: ['1 agent is working; it is stopped and its turn is run again at the next start.'],
        intent: { kind: 'quit' },
        yes: false,
      }),
    );
  });

  it('draws the merge confirmation naming the sessions it overlaps', async () => {
    const state = busyList(columns, rows, { selectedSessionId: 'f1' });
    await expectFrame('popup-merge', withPopup(state, mergePopup(state, session)));
  });

  it('draws the cancel confirmation of a session with a Chinese title', async () => {
    await expectFrame(
      'popup-cancel',
      withPopup(
        sessionScreen(columns, rows, wide),
        cancelPopup(wide, { uncommitted: 2, unmergedCommits: 1 }),
      ),
    );
  });

  it('draws the confirmation that lists the review threads to resolve', async () => {
    await expectFrame(
      'popup-resolve-threads',
      withPopup(sessionScreen(columns, rows, session), resolveThreadsPopup('f1', reviewThreads)),
    );
  });

  it('draws the remote branch name asked before a publish', async () => {
    await expectFrame(
      'popup-publish-branch',
      withPopup(sessionScreen(columns, rows, wide), publishBranchPopup('f2', 'grove/修复登录-🔐')),
    );
  });

  it('draws a setting being typed in', async () => {
    await expectFrame(
      'popup-setting-input',
      withPopup(settingsTab(columns, rows), {
        kind: 'input',
        title: 'Agent network: allowed hosts',
        purpose: { kind: 'setting', key: 'agents.allowHosts' },
        buffer: bufferFrom('registry.npmjs.org, 镜像.example.cn'),
      }),
    );
  });

  it('draws a busy info popup', async () => {
    await expectFrame(
      'popup-info-busy',
      withPopup(busyList(columns, rows), {
        kind: 'info',
        title: 'Syncing main with origin/main',
        lines: ['Fetching origin…', '拉取 2 个提交 ⬇️'],
        busy: true,
      }),
    );
  });
});

function settingsTab(columns: number, rows: number): AppState {
  return { ...busyList(columns, rows), tab: 'settings', selectedSetting: 3 };
}

describe('the colours of a frame', () => {
  // Colour on, as in a terminal, whatever the runner's stdout is: chalk (which
  // marked-terminal colours answers with) reads it once, when it loads.
  let level: ChalkInstance['level'] = 0;
  beforeAll(() => {
    level = chalk.level;
    chalk.level = 3;
  });
  afterAll(() => {
    chalk.level = level;
    setAnswerRenderer(renderMarkdown);
  });

  /** Draws as start.ts sets Grove up for `env`: its theme and its answer renderer. */
  const draw = (state: AppState, env: Record<string, string | undefined> = {}) => {
    setAnswerRenderer(markdownRenderer(colourAllowed(env)));
    return drawScreen(state, env);
  };

  // An answer no other test lays out, so no cached layout from before colour was on.
  const answer: TranscriptEntry = {
    position: 9,
    kind: 'assistant_answer',
    content:
      '## Colour check 🎨\n\nSee `frames.ts`, **bold** stays.\n\n```ts\nconst 颜色 = true;\n```',
    createdAt: 0,
  };
  const screens: Record<string, AppState> = {
    'the sessions list': busyList(80, 24),
    'the session view with a markdown answer': {
      ...sessionScreen(80, 24, session),
      transcripts: { f1: [answer] },
    },
    'the diff view': {
      ...busyList(80, 24),
      mode: diffMode('f1'),
      diff: {
        sessionId: 'f1',
        loading: false,
        error: null,
        files: diffFiles,
        added: 6,
        deleted: 2,
      },
    },
    'a confirmation': withPopup(busyList(80, 24), mergePopup(busyList(80, 24), session)),
  };

  it.each(Object.keys(screens))('has no colour code in %s with NO_COLOR', (name) => {
    const state = screens[name] as AppState;
    const plain = draw(state, { NO_COLOR: '1' });
    expect(plain.raw).not.toMatch(COLOUR);
    // Only the colours go: the text, and so the layout, is the same as with colour.
    expect(plain.lines).toEqual(draw(state).lines);
  });

  it('has the theme colours in the list and the answer when colour is allowed', () => {
    const { raw } = draw(busyList(80, 24));
    const line = (text: string): string => raw.split('\n').find((l) => l.includes(text)) ?? '';
    // Grove paints list rows itself: the status in its theme colour, +/- in the diff colours.
    expect(line('Bump dependencies')).toContain(`${ESC}[32mDone`);
    expect(line('Bump dependencies')).toContain(`${ESC}[32m+30`);
    expect(line('Bump dependencies')).toContain(`${ESC}[31m-30`);
    expect(line('Rename the config')).toContain(`${ESC}[34mQueued`);
    const session = draw(screens['the session view with a markdown answer'] as AppState).raw;
    expect(session.split('\n').find((l) => l.includes('Colour check'))).toMatch(COLOUR);
  });

  it('keeps bold in a markdown answer without colour', () => {
    const plain = draw(screens['the session view with a markdown answer'] as AppState, {
      NO_COLOR: '1',
    }).raw;
    const line = plain.split('\n').find((l) => stripVTControlCharacters(l).includes('bold stays'));
    expect(line).toContain(`${ESC}[1mbold`);
  });
});

describe('the ink that draws the frames', () => {
  it('is the fork in packages/ink, the one the bundle ships', () => {
    const root = join(import.meta.dirname, '..', '..');
    const resolved = realpathSync(createRequire(import.meta.url).resolve('ink'));
    expect(resolved.startsWith(realpathSync(join(root, 'packages', 'ink')))).toBe(true);
  });
});
