// Frame snapshots of the tabs (sessions, projects, settings): the whole screen
// as text in __snapshots__/frames/, at 80×24, 120×40 and 60×20. After a
// deliberate layout change: `npx vitest run -u test/unit/frames-list.test.ts`,
// then read the diff of the .txt files.
import { describe, expect, it } from 'vitest';
import { bufferFrom } from '../../src/domain/composer.js';
import { SETTING_ROWS } from '../../src/domain/settings.js';
import { orderedSessions } from '../../src/domain/session-order.js';
import { archivedInList } from '../../src/app/state.js';
import { appState } from '../helpers/render.js';
import { FRAME_SIZES, drawScreen, expectFrame } from '../helpers/frames.js';
import {
  CJK_TITLE,
  EMOJI_TITLE,
  busyList,
  frameSession,
  listSessions,
} from '../helpers/frame-fixtures.js';
import type { DiskMeasure } from '../../src/domain/disk.js';
import type { Session } from '../../src/domain/session.js';
import { cellWidth } from '../helpers/render.js';

describe.each(FRAME_SIZES)('the tabs at %i×%i', (columns, rows) => {
  it('draws the sessions list with every group, badges and wide titles', async () => {
    await expectFrame('sessions-list', busyList(columns, rows));
  });

  it('draws the archive with sessions not read yet: its count and the last row', async () => {
    const list = busyList(columns, rows);
    const last = orderedSessions(list.sessions).at(-1)?.id ?? null;
    await expectFrame(
      'sessions-archive-unread',
      busyList(columns, rows, {
        selectedSessionId: last,
        archive: {
          query: '',
          total: archivedInList(list) + 1234,
          stored: archivedInList(list) + 1234,
          read: archivedInList(list),
        },
      }),
    );
  });

  it('draws the empty sessions list', async () => {
    await expectFrame('sessions-empty', appState({ columns, rows }));
  });

  it('draws the list searched for Chinese text with the status filter on', async () => {
    await expectFrame(
      'sessions-search',
      busyList(columns, rows, {
        selectedSessionId: 'f6',
        sessionFilter: { query: '', input: bufferFrom('测试'), status: 'review' },
      }),
    );
  });

  it('draws the CPU and memory of running agents, and the machine in the header', async () => {
    const figures = (cpuPercent: number, rssBytes: number, processes: number) => ({
      cpuPercent,
      rssBytes,
      processes,
      sampledAt: 0,
    });
    await expectFrame(
      'sessions-resources',
      busyList(columns, rows, {
        resources: {
          sessions: {
            f2: figures(187.5, 1.4 * 1024 ** 3, 12),
            f3: figures(0.4, 212 * 1024 ** 2, 3),
          },
          machine: {
            memoryAvailableBytes: 5.2 * 1024 ** 3,
            memoryTotalBytes: 16 * 1024 ** 3,
            load: [1.2, 0.9, 0.7],
            grove: figures(190, 1.8 * 1024 ** 3, 17),
          },
        },
      }),
    );
  });

  it('draws a list filtered down to nothing', async () => {
    await expectFrame(
      'sessions-filtered-out',
      busyList(columns, rows, {
        sessionFilter: { query: 'no such session', input: null, status: 'all' },
      }),
    );
  });

  it('draws an error notice on the footer', async () => {
    await expectFrame(
      'sessions-error-notice',
      busyList(columns, rows, {
        notice: {
          level: 'error',
          text: 'Merge failed: src/login.ts conflicts with main (合并冲突) — resolve it in the session',
        },
      }),
    );
  });

  it('draws the projects tab with the agent CLIs found', async () => {
    await expectFrame(
      'projects',
      appState({
        columns,
        rows,
        tab: 'projects',
        projects: [
          { id: 1, path: '/home/dev/demo', displayName: 'demo', createdAt: 0, lastOpenedAt: 0 },
          {
            id: 2,
            path: '/home/dev/项目/网站',
            displayName: '网站 🌐',
            createdAt: 0,
            lastOpenedAt: 0,
          },
          {
            id: 3,
            path: '/home/dev/src/a-project-with-a-rather-long-name-indeed',
            displayName: 'a-project-with-a-rather-long-name-indeed',
            createdAt: 0,
            lastOpenedAt: 0,
          },
        ],
        selectedProjectId: 2,
        agents: [
          { id: 'claude', binary: 'claude', path: '/usr/local/bin/claude', version: '2.0.1' },
          { id: 'codex', binary: 'codex', path: null, version: null },
          { id: 'gemini', binary: 'gemini', path: '/usr/local/bin/gemini', version: null },
        ],
      }),
    );
  });

  it('draws the projects tab while the agent CLIs are looked for', async () => {
    await expectFrame('projects-checking', appState({ columns, rows, tab: 'projects' }));
  });

  it('draws the settings tab', async () => {
    const selectedSetting = SETTING_ROWS.findIndex((row) =>
      row.label.startsWith('Notify: terminal n'),
    );
    await expectFrame('settings', appState({ columns, rows, tab: 'settings', selectedSetting }));
  });

  it('draws the Disk view: sizes, what is shared, what gc would reclaim', async () => {
    await expectFrame(
      'disk',
      busyList(columns, rows, {
        disk: diskFixture(),
        diskView: { cursor: 0 },
        now: 40 * 86_400_000,
      }),
    );
  });

  it('draws the worktree sizes the Disk view measured in the list, where the width allows', async () => {
    await expectFrame(
      'sessions-disk',
      busyList(columns, rows, { disk: diskFixture(), now: 40 * 86_400_000 }),
    );
  });

  it('draws the Disk view while nothing is measured yet', async () => {
    await expectFrame('disk-empty', busyList(columns, rows, { diskView: { cursor: 0 } }));
  });
});

/** Three measured worktrees: a live one sharing node_modules by a link, a CJK one with a clone, an old canceled one. */
function diskFixture(): Record<string, DiskMeasure> {
  const MB = 1024 * 1024;
  const day = 86_400_000;
  const now = 40 * day;
  const measure = (
    s: Session,
    allocated: number,
    apparent: number,
    shared: DiskMeasure['shared'],
  ): DiskMeasure => ({
    allocated,
    apparent,
    shared,
    measuredAt: now,
    session: s,
  });
  const [first, second] = listSessions;
  const old = frameSession('Canceled', 90, { title: 'Old experiment', updatedAt: 0 });
  if (!first || !second) throw new Error('fixture');
  return {
    [first.id]: measure(first, 12 * MB, 11 * MB, [
      { path: 'node_modules', kind: 'link', allocated: 0 },
    ]),
    [second.id]: measure(second, 340 * MB, 360 * MB, [
      { path: 'node_modules', kind: 'folder', allocated: 320 * MB },
    ]),
    [old.id]: measure(old, 90 * MB, 88 * MB, []),
  };
}

describe('wide titles in the sessions list', () => {
  it.each(FRAME_SIZES)(
    'put the status of a CJK or emoji row in the same cell as an ASCII row at %i×%i',
    (columns, rows) => {
      const { lines } = drawScreen(busyList(columns, rows));
      const rowOf = (title: string): string =>
        lines.find((line) => line.includes(title.slice(0, 4))) ?? '';
      const statusCell = (line: string, status: string): number =>
        cellWidth(line.slice(0, line.lastIndexOf(status)));
      const ascii = rowOf(listSessions[0]?.title ?? '');
      const chinese = rowOf('测试：缓存');
      expect(statusCell(chinese, 'Review')).toBe(statusCell(ascii, 'Review'));
      const emoji = rowOf(EMOJI_TITLE);
      const cjk = rowOf(CJK_TITLE);
      expect(cellWidth(emoji)).toBeLessThanOrEqual(columns);
      expect(cellWidth(cjk)).toBeLessThanOrEqual(columns);
      // The emoji title's row ends in the same cell as the other full rows (its status or timer).
      if (columns >= 80) expect(statusCell(emoji, 'Question')).toBe(statusCell(ascii, 'Review'));
    },
  );
});
