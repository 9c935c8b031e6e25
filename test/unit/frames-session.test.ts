// Frame snapshots of the session view: a finished turn (markdown answer in
// English, Chinese and emoji), a running one, the composer and its slash
// picker, a new session on a host with the /host picker, a question, the
// review-thread panel. Text in
// __snapshots__/frames/session-*.txt; after a deliberate layout change:
// `npx vitest run -u test/unit/frames-session.test.ts`, then read the diff.
import { describe, expect, it } from 'vitest';
import { bufferFrom } from '../../src/domain/composer.js';
import { noAssist } from '../../src/domain/composer-assist.js';
import { slashCompletions } from '../../src/domain/slash-commands.js';
import { KNOWN_HOSTS_KEY } from '../../src/domain/host.js';
import { FRAME_SIZES, drawScreen, expectFrame, withMarkdownAnswers } from '../helpers/frames.js';
import {
  frameSession,
  pullRequest,
  reviewThreads,
  sessionScreen,
  transcript,
} from '../helpers/frame-fixtures.js';
import { cellWidth } from '../helpers/render.js';

withMarkdownAnswers();

const finished = frameSession('Review', 1, {
  title: '修复登录错误提示 🔐 and lock the account',
  addedLines: 14,
  deletedLines: 3,
  inputTokens: 12_300,
  outputTokens: 700,
  activeSeconds: 754,
  size: 'S',
});

const running = frameSession('InProgress', 2, {
  title: 'Add a dark theme 🌙 to the docs site',
  activeSeconds: 65,
});

const asking = frameSession('Question', 3, {
  title: '选择日期格式',
  questions: [
    {
      text: 'Which date format should the report use? 报告应该使用哪种日期格式？',
      options: ['ISO 8601 (2025-01-31)', '中文（2025年1月31日）', 'Emoji 📅 31/01'],
    },
    { text: 'Keep the old format too?', options: ['Yes', 'No'] },
  ],
});

const published = frameSession('Review', 5, {
  title: 'Add a dark theme 🌙 to the docs site',
  reviewRequest: pullRequest,
});

describe.each(FRAME_SIZES)('the session view at %i×%i', (columns, rows) => {
  it('draws a finished turn with its markdown answer', async () => {
    await expectFrame('session-transcript', sessionScreen(columns, rows, finished));
  });

  it('draws the tool calls unfolded', async () => {
    await expectFrame(
      'session-tools-expanded',
      sessionScreen(columns, rows, finished, { toolsExpanded: true }),
    );
  });

  it('draws a running turn with its progress and a queued prompt', async () => {
    await expectFrame(
      'session-running',
      sessionScreen(
        columns,
        rows,
        running,
        {},
        {
          progress: { f2: 'Editing docs/theme.css (深色模式)' },
          queued: { f2: ['然后更新 README'] },
        },
      ),
    );
  });

  it('draws the composer with a reply in Chinese and emoji', async () => {
    await expectFrame(
      'session-composer',
      sessionScreen(columns, rows, finished, {
        composer: bufferFrom('谢谢！Please also add a test 🧪\nfor the lock timer'),
      }),
    );
  });

  it('draws a new session on a host: its header and composer say where it runs, /host lists the places', async () => {
    const hosted = frameSession('Draft', 6, { title: '', prompt: null, host: 'build' });
    await expectFrame(
      'session-host-picker',
      sessionScreen(
        columns,
        rows,
        hosted,
        {
          composer: bufferFrom('/host '),
          assist: {
            ...noAssist,
            completion: {
              kind: 'slash',
              items:
                slashCompletions('/host ', {
                  agent: 'claude',
                  hosts: ['build', 'gpu-box'],
                  newSession: true,
                }) ?? [],
              selected: 1,
            },
          },
        },
        { transcripts: { f6: [] }, settings: { [KNOWN_HOSTS_KEY]: 'build,gpu-box' } },
      ),
    );
  });

  it('draws the slash picker under the composer', async () => {
    const composer = bufferFrom('/');
    await expectFrame(
      'session-slash-picker',
      sessionScreen(columns, rows, finished, {
        composer,
        assist: {
          ...noAssist,
          completion: {
            kind: 'slash',
            items: slashCompletions('/', { agent: 'claude' }) ?? [],
            selected: 1,
          },
        },
      }),
    );
  });

  it('draws a question with its options', async () => {
    await expectFrame(
      'session-question',
      sessionScreen(columns, rows, asking, {
        question: { index: 0, selected: 1, answers: [], buffer: bufferFrom('') },
      }),
    );
  });

  it('draws the review-thread panel of a published session', async () => {
    await expectFrame(
      'session-threads',
      sessionScreen(
        columns,
        rows,
        published,
        { threads: { cursor: 1, selected: ['t1'] } },
        { reviewThreads: { f5: { threads: reviewThreads, error: null } } },
      ),
    );
  });

  it('draws the transcript while it loads', async () => {
    await expectFrame('session-loading', {
      ...sessionScreen(columns, rows, finished),
      transcripts: {},
    });
  });
});

describe('wide text in the session view', () => {
  it.each(FRAME_SIZES)(
    'keeps every line of the Chinese answer within %i columns, none cut inside a character',
    (columns, rows) => {
      const { lines } = drawScreen(sessionScreen(columns, rows, finished));
      for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(columns);
      const answer = transcript.find((e) => e.kind === 'assistant_answer')?.content ?? '';
      const chinese = /登录页面[^。]*。/.exec(answer)?.[0] ?? '';
      // The paragraph is wrapped, never cut: every character of it is on screen, in order.
      expect(lines.join('').replace(/\s+/g, '')).toContain(chinese);
    },
  );
});
