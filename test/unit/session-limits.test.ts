import { describe, expect, it } from 'vitest';
import {
  effectiveLimit,
  limitHitText,
  limitsUnavailableText,
  MEMORY_MAX_KEY,
  sessionLimits,
  sizeWords,
  TASKS_MAX_KEY,
  validateMemoryMax,
  validateTasksMax,
} from '../../src/domain/limits.js';
import { SETTING_ROWS } from '../../src/domain/settings.js';
import { parseHeadless } from '../../src/cli/args.js';
import { startLimited } from '../../src/infra/agent/confine/limits.js';

// Session limits (issue 27, item 3): the settings' checks, the session's
// own value over the project's, the words shown, and grove run's flags.

describe('the limit settings', () => {
  it('are project settings, empty (no limit) by default, checked as they are typed', () => {
    for (const key of [MEMORY_MAX_KEY, TASKS_MAX_KEY]) {
      const row = SETTING_ROWS.find((r) => r.key === key);
      expect(row?.scope).toBe('project');
      expect(row?.kind).toBe('text');
      expect(row?.fallback({})).toBe('');
    }
    const memory = SETTING_ROWS.find((r) => r.key === MEMORY_MAX_KEY);
    expect(memory?.validate?.('lots')).toMatch(/Memory limit: give a size/);
    expect(memory?.validate?.('4G')).toBeNull();
  });

  it('take sizes and counts in range, or none', () => {
    for (const good of ['', 'none', 'off', '4G', '512M', '1.5G', '64MB', ' 2g '])
      expect(validateMemoryMax(good)).toBeNull();
    for (const bad of ['4X', '-1G', '1M', '0', 'lots', '2P'])
      expect(validateMemoryMax(bad)).toMatch(/give a size from 32M to 1P/);
    for (const good of ['', 'none', '8', '512', '4194304'])
      expect(validateTasksMax(good)).toBeNull();
    for (const bad of ['7', '0', '1.5', '5000000', 'many'])
      expect(validateTasksMax(bad)).toMatch(/give a number of processes from 8/);
  });

  it('read as limits; a value that does not pass counts as none', () => {
    expect(sessionLimits('4G', '512')).toEqual({ memoryBytes: 4 * 1024 ** 3, tasks: 512 });
    expect(sessionLimits('', undefined)).toEqual({ memoryBytes: null, tasks: null });
    expect(sessionLimits('none', 'lots')).toEqual({ memoryBytes: null, tasks: null });
  });

  it("a session's own value goes over the project's, and none turns it off", () => {
    expect(effectiveLimit(null, '4G')).toBe('4G');
    expect(effectiveLimit('1G', '4G')).toBe('1G');
    expect(effectiveLimit('none', '4G')).toBe('none');
    expect(sessionLimits(effectiveLimit('none', '4G'), undefined).memoryBytes).toBeNull();
  });
});

describe('the words', () => {
  it('say which limit stopped the tree', () => {
    expect(limitHitText({ kind: 'memory', bytes: 4 * 1024 ** 3 })).toBe(
      "the agent's process tree was stopped at its 4 GB memory limit",
    );
    expect(limitHitText({ kind: 'memory', bytes: 64 * 1024 ** 2 })).toBe(
      "the agent's process tree was stopped at its 64 MB memory limit",
    );
    expect(limitHitText({ kind: 'tasks', tasks: 512 })).toBe(
      "the agent's process tree was stopped at its 512-process limit",
    );
    expect(sizeWords(1.5 * 1024 ** 3)).toBe('1.5 GB');
  });

  it('say when limits are not enforced, and why', () => {
    expect(
      limitsUnavailableText(
        { memoryBytes: 4 * 1024 ** 3, tasks: 512 },
        'session limits are not supported on macOS',
      ),
    ).toBe(
      "[Limits Warning] This session's limits (4 GB memory, 512 processes) are not enforced on this machine: session limits are not supported on macOS. The agent runs without them.",
    );
  });
});

describe('grove run --memory-max / --tasks-max', () => {
  it('are parsed and kept as given', () => {
    expect(parseHeadless('run', ['--memory-max', '4G', '--tasks-max', '512', 'hi'])).toMatchObject({
      kind: 'run',
      memoryMax: '4G',
      tasksMax: '512',
      prompt: 'hi',
    });
    expect(parseHeadless('run', ['hi'])).toMatchObject({ memoryMax: null, tasksMax: null });
    expect(parseHeadless('run', ['--memory-max', 'none', 'hi'])).toMatchObject({
      memoryMax: 'none',
    });
  });

  it('refuse a bad value, an empty one, and -n N, in words', () => {
    expect(() => parseHeadless('run', ['--memory-max', '4X', 'hi'])).toThrow(
      /--memory-max: Memory limit: give a size/,
    );
    expect(() => parseHeadless('run', ['--memory-max', '', 'hi'])).toThrow(/--memory-max/);
    expect(() => parseHeadless('run', ['--tasks-max', '3', 'hi'])).toThrow(
      /--tasks-max: Process limit/,
    );
    expect(() => parseHeadless('run', ['-n', '2', '--tasks-max', '64', 'hi'])).toThrow(
      /cannot be used with -n N/,
    );
  });
});

describe('a scope of the user systemd', () => {
  it("limits the agent's command and gives systemd-run the user's bus, which the agent does not get", () => {
    const saved = process.env['XDG_RUNTIME_DIR'];
    const bus = process.env['DBUS_SESSION_BUS_ADDRESS'];
    process.env['XDG_RUNTIME_DIR'] = '/run/user/1000';
    delete process.env['DBUS_SESSION_BUS_ADDRESS'];
    try {
      const run = startLimited(
        { kind: 'systemd' },
        { memoryBytes: 4 * 1024 ** 3, tasks: 512 },
        '/usr/bin/bwrap',
        ['--', 'claude', '-p'],
        { PATH: '/usr/bin' },
      );
      expect(run.command).toBe('systemd-run');
      expect(run.args).toEqual([
        '--user',
        '--scope',
        '--quiet',
        expect.stringMatching(/^--unit=grove-\d+-\d+\.scope$/),
        '-p',
        `MemoryMax=${4 * 1024 ** 3}`,
        '-p',
        'TasksMax=512',
        '--',
        '/usr/bin/env',
        '-u',
        'XDG_RUNTIME_DIR',
        '/usr/bin/bwrap',
        '--',
        'claude',
        '-p',
      ]);
      expect(run.env).toEqual({ XDG_RUNTIME_DIR: '/run/user/1000' });
    } finally {
      if (saved === undefined) delete process.env['XDG_RUNTIME_DIR'];
      else process.env['XDG_RUNTIME_DIR'] = saved;
      if (bus !== undefined) process.env['DBUS_SESSION_BUS_ADDRESS'] = bus;
    }
  });
});
