import { describe, expect, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import { SETTING_ROWS } from '../../src/domain/settings.js';
import type { Project } from '../../src/domain/project.js';
import {
  SPARE_KEYS,
  bindingRows,
  pressKeys,
  typeInput,
  unboundKeys,
  type IntentCall,
} from '../helpers/keys.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// The three list tabs: every key of each tab's binding table, and what it asks for.

interface Intent {
  readonly events: readonly unknown[];
  readonly calls: readonly IntentCall[];
}

const call = (method: IntentCall['method'], ...args: unknown[]): IntentCall => ({ method, args });
const none: Intent = { events: [], calls: [] };

// Shown newest first: a, b, c. The middle one is selected.
const a = makeSession('Review', { id: 'a', createdAt: 30 });
const b = makeSession('InProgress', { id: 'b', createdAt: 20 });
const c = makeSession('Draft', { id: 'c', createdAt: 10 });
const projects: Project[] = [
  { id: 1, path: '/p/one', displayName: 'one', createdAt: 0, lastOpenedAt: 0 },
  { id: 2, path: '/p/two', displayName: 'two', createdAt: 0, lastOpenedAt: 0 },
  { id: 3, path: '/p/three', displayName: 'three', createdAt: 0, lastOpenedAt: 0 },
];
const intervalRow = SETTING_ROWS.findIndex((row) => row.key === 'git.statusInterval');

function listState(tab: AppState['tab']): AppState {
  return appState({
    tab,
    sessions: [a, b, c],
    selectedSessionId: 'b',
    projects,
    activeProjectId: 2,
    selectedProjectId: 2,
    selectedSetting: intervalRow,
  });
}

/** The keys every list tab shares. Tabs cycle projects → sessions → settings. */
function commonIntents(tab: AppState['tab']): Record<string, Intent> {
  const next = tab === 'projects' ? 'sessions' : tab === 'sessions' ? 'settings' : 'projects';
  return {
    nextTab: { events: [{ type: 'tab', tab: next }], calls: [call('rememberTab', next)] },
    syncMain: { events: [], calls: [call('syncMain')] },
    help: { events: [{ type: 'popup', popup: { kind: 'help' } }], calls: [] },
    // Quitting asks first; nothing is stopped by the key itself.
    quit: {
      events: [
        {
          type: 'popup',
          popup: expect.objectContaining({
            kind: 'confirm',
            intent: { kind: 'quit' },
            yes: false,
          }) as unknown,
        },
      ],
      calls: [],
    },
  };
}

const INTENTS: Record<'sessions' | 'projects' | 'settings', Record<string, Intent>> = {
  sessions: {
    down: { events: [{ type: 'selectSession', sessionId: 'c' }], calls: [] },
    up: { events: [{ type: 'selectSession', sessionId: 'a' }], calls: [] },
    first: { events: [{ type: 'selectSession', sessionId: 'a' }], calls: [] },
    last: { events: [{ type: 'selectSession', sessionId: 'c' }], calls: [] },
    open: { events: [], calls: [call('openSession', 'b')] },
    new: { events: [], calls: [call('createSession')] },
    cancel: { events: [], calls: [call('requestCancel', 'b')] },
    startDraft: { events: [], calls: [call('startDraft', 'b')] },
    startDrafts: { events: [], calls: [call('startDrafts', null)] },
    // Only a saved draft can be marked; the selected session is working.
    mark: none,
    shell: { events: [], calls: [call('openWorktree', 'b', 'shell')] },
    editor: { events: [], calls: [call('openWorktree', 'b', 'editor')] },
    search: {
      events: [
        {
          type: 'sessionFilter',
          filter: {
            query: '',
            input: expect.objectContaining({ text: '' }) as unknown,
            status: 'all',
          },
        },
      ],
      calls: [],
    },
    statusFilter: {
      events: [{ type: 'sessionFilter', filter: { query: '', input: null, status: 'needsYou' } }],
      calls: [],
    },
    // Nothing is filtered: there is nothing to clear.
    clearFilter: none,
    ...commonIntents('sessions'),
  },
  projects: {
    down: { events: [{ type: 'selectProject', projectId: 3 }], calls: [] },
    up: { events: [{ type: 'selectProject', projectId: 1 }], calls: [] },
    open: { events: [], calls: [call('activateProject', 2)] },
    ...commonIntents('projects'),
  },
  settings: {
    down: { events: [{ type: 'selectSetting', index: intervalRow + 1 }], calls: [] },
    up: { events: [{ type: 'selectSetting', index: intervalRow - 1 }], calls: [] },
    // The refresh interval cycles 15s, 30s (default), 60s, 120s, off.
    next: { events: [], calls: [call('setSetting', 'git.statusInterval', '60s')] },
    prev: { events: [], calls: [call('setSetting', 'git.statusInterval', '15s')] },
    ...commonIntents('settings'),
  },
};

describe.each(['sessions', 'projects', 'settings'] as const)('the %s tab', (tab) => {
  it.each(bindingRows(tab))('turns %s (%s) into its intent', (key, action) => {
    const run = pressKeys(listState(tab), [key]);
    const expected = INTENTS[tab][action];
    if (expected) expect({ events: run.events, calls: run.calls }).toEqual(expected);
    // An action added to the table after this test was written must at least do something.
    else expect(run.events.length + run.calls.length).toBeGreaterThan(0);
  });

  it('leaves the tab alone on Shift+Tab, the permission-mode key of a session', () => {
    const before = listState(tab);
    const run = pressKeys(before, ['shift+tab']);
    expect({ events: run.events, calls: run.calls }).toEqual(none);
    expect(run.state.tab).toBe(tab);
  });

  it.each(unboundKeys(tab, SPARE_KEYS))('does nothing on %s', (key) => {
    const before = listState(tab);
    const run = pressKeys(before, [key]);
    expect({ events: run.events, calls: run.calls }).toEqual(none);
    expect(run.state).toBe(before);
  });
});

describe('list navigation', () => {
  it('stops at the last session instead of wrapping', () => {
    const run = pressKeys(listState('sessions'), ['j', 'j', 'j']);
    expect(run.state.selectedSessionId).toBe('c');
  });

  it('moves through the variants of a best-of-N group in the order the list shows them', () => {
    // Newest first would be a, b, c; b and c are a group ranked c first, so the list shows a, c, b.
    const ranked = {
      id: 'g',
      projectId: 2,
      prompt: 'task',
      status: 'ranked' as const,
      members: [
        { sessionId: 'b', position: 1, check: null },
        { sessionId: 'c', position: 2, check: null },
      ],
      ranking: [
        { sessionId: 'c', rank: 1, reason: '' },
        { sessionId: 'b', rank: 2, reason: '' },
      ],
      note: null,
      chosenSessionId: null,
      createdAt: 0,
    };
    const state = { ...listState('sessions'), selectedSessionId: 'a', groups: { g: ranked } };

    const run = pressKeys(state, ['j']);

    expect(run.state.selectedSessionId).toBe('c');
  });

  it('stops at the first project instead of wrapping', () => {
    const run = pressKeys(listState('projects'), ['k', 'k', 'k']);
    expect(run.state.selectedProjectId).toBe(1);
  });

  it('opens and cancels nothing when the list is empty', () => {
    const run = pressKeys(appState({ tab: 'sessions' }), ['enter', 'c', 'j']);
    expect({ events: run.events, calls: run.calls }).toEqual(none);
  });

  it('asks for the value of a text setting in an input popup', () => {
    const textRow = SETTING_ROWS.findIndex((row) => row.kind === 'text');
    const row = SETTING_ROWS[textRow];
    const run = pressKeys({ ...listState('settings'), selectedSetting: textRow }, ['enter']);
    expect(run.calls).toEqual([]);
    expect(run.state.popup).toMatchObject({
      kind: 'input',
      title: row?.label,
      purpose: { kind: 'setting', key: row?.key },
    });
  });

  it('clears a notice on the next key', () => {
    const run = pressKeys({ ...listState('sessions'), notice: { level: 'info', text: 'done' } }, [
      'x',
    ]);
    expect(run.state.notice).toBeNull();
  });
});

describe('terminal focus', () => {
  it('tells the app the screen is watched or not when the terminal gains or loses focus, on any page', () => {
    const state = listState('sessions');
    const run = typeInput(state, '\x1b[O\x1b[I');
    expect(run.calls).toEqual([
      { method: 'setWatched', args: [false] },
      { method: 'setWatched', args: [true] },
    ]);
    expect(run.state).toBe(state);
  });
});
