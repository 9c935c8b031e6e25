// The checks of a pull request as Grove reads and shows them (issue 28,
// item 2): each check's state, the badge a set of them makes, and the tail
// of a failing job's log, without terminal escapes and within its caps.
import { describe, expect, it } from 'vitest';
import {
  checkRunState,
  checksState,
  checksSummary,
  commitStatusState,
  logTail,
} from '../../src/domain/checks.js';
import { checkLines } from '../../src/ui/checks-layout.js';
import { fitBadges, rowBadges, type RowFacts } from '../../src/ui/list-row.js';
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

const PR = {
  number: 7,
  url: 'https://github.com/acme/widgets/pull/7',
  state: 'open' as const,
  isDraft: true,
  reviewDecision: null,
  checksSummary: null,
  headBranch: 'grove/x',
  baseBranch: 'main',
};

describe('check states and the badge', () => {
  it('reads check runs and commit statuses', () => {
    expect(checkRunState('queued', null)).toBe('pending');
    expect(checkRunState('in_progress', null)).toBe('pending');
    for (const ok of ['success', 'neutral', 'skipped'])
      expect(checkRunState('completed', ok)).toBe('passing');
    for (const bad of ['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure'])
      expect(checkRunState('completed', bad)).toBe('failing');
    expect(commitStatusState('pending')).toBe('pending');
    expect(commitStatusState('success')).toBe('passing');
    expect(commitStatusState('failure')).toBe('failing');
    expect(commitStatusState('error')).toBe('failing');
  });

  it('is failing if any fails, else pending if any runs, else passing; none without checks', () => {
    const c = (state: 'pending' | 'failing' | 'passing') => ({ state });
    expect(checksState([])).toBeNull();
    expect(checksState([c('passing'), c('pending'), c('failing')])).toBe('failing');
    expect(checksState([c('passing'), c('pending')])).toBe('pending');
    expect(checksState([c('passing'), c('passing')])).toBe('passing');
    expect(checksSummary([c('passing'), c('failing'), c('failing')])).toBe('1 passed, 2 failed');
    expect(checksSummary([])).toBeNull();
  });

  it('shows on the row of an open pull request, shortened on a narrow row', () => {
    const failing = makeSession('Review', {
      id: 'f',
      reviewRequest: { ...PR, checksState: 'failing' },
    });
    const badges = rowBadges(failing, FACTS);
    expect(badges.map((b) => [b.full, b.tone])).toEqual([[' [checks failing]', 'error']]);
    expect(fitBadges(badges, 10)).toEqual([' [ci ✗]']);
    const pending = makeSession('Review', {
      id: 'p',
      reviewRequest: { ...PR, checksState: 'pending' },
    });
    expect(rowBadges(pending, FACTS).map((b) => b.full)).toEqual([' [checks pending]']);
    const merged = makeSession('Merged', {
      id: 'm',
      reviewRequest: { ...PR, state: 'merged', checksState: 'failing' },
    });
    expect(rowBadges(merged, FACTS)).toEqual([]);
    expect(rowBadges(makeSession('Review', { id: 'n', reviewRequest: PR }), FACTS)).toEqual([]);
  });
});

describe('a job log tail', () => {
  it('keeps the last 40 lines', () => {
    const log = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n');
    const tail = logTail(`${log}\n\n`);
    expect(tail.split('\n')).toHaveLength(40);
    expect(tail.startsWith('line 61\n')).toBe(true);
    expect(tail.endsWith('line 100')).toBe(true);
  });

  it('keeps at most 4 KB of UTF-8, whole lines, or the end of one long line without cutting a character', () => {
    const wide = 'é'.repeat(300); // 600 bytes a line
    const tail = logTail(Array.from({ length: 20 }, () => wide).join('\n'));
    expect(new TextEncoder().encode(tail).length).toBeLessThanOrEqual(4096);
    expect(tail.split('\n')).toHaveLength(6);
    const long = logTail(`start ${'€'.repeat(3000)} end`);
    expect(new TextEncoder().encode(long).length).toBeLessThanOrEqual(4096);
    expect(long.endsWith('€ end')).toBe(true);
    expect(long).not.toContain('\uFFFD');
  });

  it('takes out colours, cursor moves, titles, hyperlinks and clipboard writes; keeps a redrawn line as drawn last', () => {
    const tail = logTail(
      [
        '2026-12-01T10:00:00.1234567Z \u001b[31;1mred\u001b[0m',
        '\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\ text',
        '\u001b]52;c;cm0gLXJm\u0007after',
        '\u001b[2K\u001b[1Aup 10%\rup 100%',
        '\u001bPq#0;2;0;0;0\u001b\\sixel gone',
        'del\u007f and nul\u0000',
      ].join('\r\n'),
    );
    expect(tail.split('\n')).toEqual([
      'red',
      'link text',
      'after',
      'up 100%',
      'sixel gone',
      'del␡ and nul␀',
    ]);
  });
});

describe('the session view', () => {
  it('lists each failing check with its log tail, or why it could not be read', () => {
    const session = makeSession('Review', {
      id: 's',
      reviewRequest: { ...PR, checksState: 'failing' },
    });
    const check = {
      kind: 'check_run' as const,
      url: null,
      jobId: 1,
      logError: null,
    };
    const lines = checkLines(
      {
        headSha: 'abcdef1234567',
        runsEtag: null,
        statusesEtag: null,
        state: 'failing',
        error: null,
        fetchedAt: 0,
        checks: [
          { ...check, name: 'test', state: 'failing', conclusion: 'failure', logTail: 'a\nFAIL b' },
          { ...check, name: 'lint', state: 'passing', conclusion: 'success', logTail: null },
          {
            ...check,
            name: 'e2e',
            state: 'failing',
            conclusion: 'timed_out',
            logTail: null,
            logError: 'The log could not be read: gone.',
          },
        ],
      },
      session,
      100,
    );
    expect(lines.map((l) => l.text)).toEqual([
      '── Checks on PR #7 (abcdef1): 1 passed, 2 failed ──',
      '✗ test (failure)',
      '  │ a',
      '  │ FAIL b',
      '✗ e2e (timed_out)',
      '  The log could not be read: gone.',
      '',
    ]);
  });
});
