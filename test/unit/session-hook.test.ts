import { describe, expect, it } from 'vitest';
import {
  SESSION_HOOK_KEYS,
  sessionHookNotice,
  sessionHookSetting,
} from '../../src/domain/session-hook.js';
import { SETTING_ROWS, settingValue } from '../../src/domain/settings.js';

describe('session hook settings', () => {
  it('has no hook until a command is set; confined, with a 60 s limit, by default', () => {
    expect(sessionHookSetting({})).toBeNull();
    expect(sessionHookSetting({ [SESSION_HOOK_KEYS.command]: '  ' })).toBeNull();
    expect(sessionHookSetting({ [SESSION_HOOK_KEYS.command]: 'notify.sh' })).toEqual({
      command: 'notify.sh',
      trusted: false,
      timeoutMs: 60_000,
    });
    const row = SETTING_ROWS.find((r) => r.key === SESSION_HOOK_KEYS.timeout);
    expect(row && settingValue(row, {})).toBe('60s');
  });

  it('reads trusted and the time limit, and falls back on a limit it does not know', () => {
    const hook = (timeout: string) =>
      sessionHookSetting({
        [SESSION_HOOK_KEYS.command]: 'x',
        [SESSION_HOOK_KEYS.trusted]: 'on',
        [SESSION_HOOK_KEYS.timeout]: timeout,
      });
    expect(hook('2m')).toMatchObject({ trusted: true, timeoutMs: 120_000 });
    expect(hook('soon')?.timeoutMs).toBe(60_000);
  });
});

describe('session hook notices', () => {
  const firing = { event: 'review' as const, detail: '' };
  it('says nothing of a run that went well, and the exit code or the time limit of one that did not', () => {
    expect(
      sessionHookNotice(firing, { exitCode: 0, timedOut: false, output: 'ok' }, 1000),
    ).toBeNull();
    expect(sessionHookNotice(firing, { exitCode: 2, timedOut: false, output: '' }, 1000)).toBe(
      '[Hook] The review hook failed (exit code 2). It printed nothing.',
    );
    const many = Array.from({ length: 9 }, (_, i) => `line ${i}`).join('\n');
    expect(sessionHookNotice(firing, { exitCode: 124, timedOut: true, output: many }, 30_000)).toBe(
      '[Hook] The review hook was stopped at its time limit (30 s).\nline 4\nline 5\nline 6\nline 7\nline 8',
    );
  });
});
