import { describe, expect, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import { bufferFrom, emptyBuffer, type TextBuffer } from '../../src/domain/composer.js';
import type { ComposerAssist } from '../../src/domain/composer-assist.js';
import { DEFAULT_HOST_KEY, KNOWN_HOSTS_KEY } from '../../src/domain/host.js';
import { SETTING_ROWS, settingValue } from '../../src/domain/settings.js';
import type { Session } from '../../src/domain/session.js';
import { parseHeadless } from '../../src/cli/args.js';
import { pressKeys, type IntentCall } from '../helpers/keys.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// Where a new session runs (issue 24), chosen in the composer with /host and
// set per project in Settings (Default host): key by key, on the reducer and
// the key handlers, with the recording fake of AppIntents.

const call = (method: IntentCall['method'], ...args: unknown[]): IntentCall => ({ method, args });
const typeText = (text: string): string[] =>
  Array.from(text).map((char) => (char === ' ' ? 'space' : char));
const assistOf = (state: AppState): ComposerAssist | undefined =>
  state.mode.kind === 'session' ? state.mode.assist : undefined;
const textOf = (state: AppState): string | null =>
  state.mode.kind === 'session' ? (state.mode.composer?.text ?? null) : null;

/** A new session (no prompt yet) in its composer, with the hosts `hosts`. */
function newSession(
  composer: TextBuffer = emptyBuffer,
  session: Partial<Session> = {},
  hosts = 'build,gpu',
): AppState {
  return appState({
    sessions: [makeSession('Draft', { id: 'x', prompt: null, ...session })],
    mode: { kind: 'session', sessionId: 'x', scrollBack: 0, composer, question: null },
    settings: { [KNOWN_HOSTS_KEY]: hosts },
  });
}

describe('the host picker in the composer', () => {
  it('offers this machine and each host after /host', () => {
    const run = pressKeys(newSession(), typeText('/host '));
    const completion = assistOf(run.state)?.completion;
    expect(
      completion?.kind === 'slash'
        ? completion.items.map((i) => `${i.label} ${i.description}`)
        : null,
    ).toEqual([
      'local this machine',
      'auto this machine or a host with room, at the first turn',
      'build SSH host',
      'gpu SSH host',
    ]);
  });

  it('picks a host with the arrows and Enter, and the composer stays open for the task', () => {
    const run = pressKeys(newSession(), [...typeText('/host '), 'down', 'down', 'enter', 'enter']);
    expect(run.calls).toEqual([call('changeSessionChoice', 'x', { host: 'build' })]);
    expect(textOf(run.state)).toBe('');
  });

  it.each([
    ['/host gpu', { host: 'gpu' }],
    ['/host local', { host: null }],
    ['/host auto', { host: 'auto' }],
  ])('runs %s', (text, change) => {
    const run = pressKeys(newSession(bufferFrom(text), { host: 'build' }), ['enter']);
    expect(run.calls).toEqual([call('changeSessionChoice', 'x', change)]);
  });

  it('refuses a name that is no host, in words, and keeps the text', () => {
    const run = pressKeys(newSession(bufferFrom('/host nope')), ['enter']);
    expect(run.calls).toEqual([]);
    expect(textOf(run.state)).toBe('/host nope');
    expect(assistOf(run.state)?.error).toBe("/host: 'nope' is not one of local, auto, build, gpu");
  });

  it('says there are no hosts yet, and how to add one', () => {
    const run = pressKeys(newSession(bufferFrom('/host build'), {}, ''), ['enter']);
    expect(run.calls).toEqual([]);
    expect(assistOf(run.state)?.error).toBe(
      '/host: there are no hosts yet (add one with grove host add NAME DEST); local is this machine.',
    );
  });

  it('refuses a host for an agent that does not run on hosts, in words, and changes nothing', () => {
    const run = pressKeys(newSession(bufferFrom('/host build'), { agent: 'acp:tiny' }), ['enter']);
    expect(run.calls).toEqual([]);
    expect(assistOf(run.state)?.error).toBe(
      'Only Claude Code, Codex and Gemini CLI run on hosts yet, not tiny: /agent claude first.',
    );
  });

  it('lets an agent that does not run on hosts be placed with auto (it then stays on this machine), and sends its prompt', () => {
    const auto = pressKeys(newSession(bufferFrom('/host auto'), { agent: 'acp:tiny' }), ['enter']);
    expect(auto.calls).toEqual([call('changeSessionChoice', 'x', { host: 'auto' })]);
    const sent = pressKeys(
      newSession(bufferFrom('Fix the export'), { agent: 'acp:tiny', placeAuto: true }),
      ['enter'],
    );
    expect(sent.calls).toEqual([call('sendPrompt', 'x', 'Fix the export')]);
  });

  it('moves an auto session to this machine with /host local', () => {
    const run = pressKeys(newSession(bufferFrom('/host local'), { placeAuto: true }), ['enter']);
    expect(run.calls).toEqual([call('changeSessionChoice', 'x', { host: null })]);
  });

  it('refuses another agent for a session on a host', () => {
    // tiny: an agent of agents.json, which /agent offers.
    const state = {
      ...newSession(bufferFrom('/agent tiny'), { host: 'build' }),
      agents: [
        {
          id: 'acp:tiny' as const,
          binary: 'acp-fixture',
          path: '/usr/bin/acp-fixture',
          version: null,
        },
      ],
    };
    const run = pressKeys(state, ['enter']);
    expect(run.calls).toEqual([]);
    expect(assistOf(run.state)?.error).toBe(
      'Only Claude Code, Codex and Gemini CLI run on hosts yet: /host local first to run tiny here.',
    );
  });

  it('sends nothing for a session on a host whose agent cannot run there (a default host and another agent)', () => {
    const run = pressKeys(
      newSession(bufferFrom('Fix the export'), { host: 'build', agent: 'acp:tiny' }),
      ['enter'],
    );
    expect(run.calls).toEqual([]);
    expect(textOf(run.state)).toBe('Fix the export');
    expect(assistOf(run.state)?.error).toBe(
      'Only Claude Code, Codex and Gemini CLI run on hosts yet: /agent claude, or /host local for tiny. Not sent.',
    );
  });

  it.each(['codex', 'gemini'])('sends the prompt of a %s session on a host', (agent) => {
    const run = pressKeys(newSession(bufferFrom('Fix the export'), { host: 'build', agent }), [
      'enter',
    ]);
    expect(run.calls).toEqual([call('sendPrompt', 'x', 'Fix the export')]);
  });

  it('sends the prompt of a Claude Code session on a host', () => {
    const run = pressKeys(newSession(bufferFrom('Fix the export'), { host: 'build' }), ['enter']);
    expect(run.calls).toEqual([call('sendPrompt', 'x', 'Fix the export')]);
  });

  it('sends best of N of a session on a host (every variant runs there)', () => {
    const run = pressKeys(newSession(bufferFrom('Fix the export'), { host: 'build' }), [
      'alt+n',
      'enter',
    ]);
    expect(run.calls).toEqual([call('sendBestOf', 'x', 'Fix the export', 2)]);
    expect(assistOf(run.state)?.error ?? null).toBeNull();
  });

  it('chooses the host only before the first prompt', () => {
    const state = appState({
      sessions: [makeSession('Review', { id: 'x', prompt: 'Done before' })],
      mode: {
        kind: 'session',
        sessionId: 'x',
        scrollBack: 0,
        composer: bufferFrom('/host build'),
        question: null,
      },
      settings: { [KNOWN_HOSTS_KEY]: 'build' },
    });
    const run = pressKeys(state, ['enter']);
    expect(run.calls).toEqual([]);
    expect(assistOf(run.state)?.error).toBe(
      'The host is chosen before the first prompt: this session runs on this machine.',
    );
  });
});

describe('the Default host setting', () => {
  const row = SETTING_ROWS.find((r) => r.key === DEFAULT_HOST_KEY);

  it('is a project setting that starts as this machine', () => {
    expect(row?.scope).toBe('project');
    expect(row ? settingValue(row, {}) : null).toBe('local');
  });

  it.each(['build', 'local', '', ' gpu '])('takes %j when the hosts are build and gpu', (value) => {
    expect(row?.validate?.(value, { [KNOWN_HOSTS_KEY]: 'build,gpu' })).toBeNull();
  });

  it('refuses a name that is no host, saying which there are', () => {
    expect(row?.validate?.('nope', { [KNOWN_HOSTS_KEY]: 'build,gpu' })).toBe(
      "No host is named 'nope' (hosts: build, gpu; local is this machine).",
    );
    expect(row?.validate?.('build', { [KNOWN_HOSTS_KEY]: '' })).toBe(
      "No host is named 'build' (there are none yet: grove host add NAME DEST; local is this machine).",
    );
  });
});

describe('grove run --host with best of N', () => {
  it.each(['local', 'build', 'auto'])(
    'takes --host %s with -n (every variant runs there)',
    (host) => {
      expect(parseHeadless('run', ['--host', host, '-n', '2', 'task'])).toMatchObject({
        kind: 'run',
        host,
        n: 2,
      });
    },
  );
});
