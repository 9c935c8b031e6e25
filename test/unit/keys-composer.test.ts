import { describe, expect, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import { bufferFrom, emptyBuffer, type TextBuffer } from '../../src/domain/composer.js';
import type { ComposerAssist } from '../../src/domain/composer-assist.js';
import { fileIndex } from '../../src/domain/file-match.js';
import { pressKeys, type IntentCall } from '../helpers/keys.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';
import { dispatchTerminalEvent } from '../../src/runtime/dispatch.js';
import { reduce } from '../../src/app/reducer.js';
import type { KeyContext } from '../../src/runtime/modes/context.js';

// The composer's pickers, slash commands, prompt history and pasted images, key by key.

const call = (method: IntentCall['method'], ...args: unknown[]): IntentCall => ({ method, args });

const WORKTREE = '/wt/x';
const FILES = fileIndex([
  'README.md',
  'src/app/controller.ts',
  'src/app/reducer.ts',
  'docs/usage/workflow.md',
]);
const HISTORY = ['add tests', 'fix the login bug', 'explain the cache'];

function composerState(
  composer: TextBuffer = emptyBuffer,
  fields: Partial<AppState> = {},
): AppState {
  return appState({
    sessions: [makeSession('Review', { id: 'x', worktreePath: WORKTREE })],
    mode: { kind: 'session', sessionId: 'x', scrollBack: 0, composer, question: null },
    fileIndex: { worktree: WORKTREE, files: FILES },
    promptHistory: HISTORY,
    ...fields,
  });
}

const textOf = (state: AppState): string | null =>
  state.mode.kind === 'session' ? (state.mode.composer?.text ?? null) : null;
const assistOf = (state: AppState): ComposerAssist | undefined =>
  state.mode.kind === 'session' ? state.mode.assist : undefined;
const typeText = (text: string): string[] =>
  Array.from(text).map((char) => (char === ' ' ? 'space' : char));

describe('@ file completion', () => {
  it('opens a picker of matching files when @ is typed', () => {
    const run = pressKeys(composerState(), typeText('see @reduc'));
    const completion = assistOf(run.state)?.completion;
    expect(completion?.kind === 'file' ? completion.match?.items : null).toEqual([
      'src/app/reducer.ts',
    ]);
  });

  it.each(['tab', 'enter'])(
    'puts the highlighted path in the prompt on %s, without sending',
    (key) => {
      const run = pressKeys(composerState(), [...typeText('see @contr'), key]);
      expect(textOf(run.state)).toBe('see @src/app/controller.ts ');
      expect(assistOf(run.state)?.completion).toBeNull();
      expect(run.calls.filter((c) => c.method === 'sendPrompt')).toEqual([]);
    },
  );

  it('moves the highlight with the arrows', () => {
    // The shorter path comes first; Down highlights the next one.
    const run = pressKeys(composerState(), [...typeText('@src'), 'down', 'tab']);
    expect(textOf(run.state)).toBe('@src/app/controller.ts ');
  });

  it('asks for the file list when the worktree has none loaded yet', () => {
    const run = pressKeys(composerState(emptyBuffer, { fileIndex: null }), ['@']);
    expect(run.calls).toEqual([call('loadFiles', 'x')]);
    const completion = assistOf(run.state)?.completion;
    expect(completion?.kind === 'file' ? completion.match : undefined).toBeNull();
  });

  it('fills the waiting picker when the file list arrives', () => {
    const waiting = pressKeys(
      composerState(emptyBuffer, { fileIndex: null }),
      typeText('@wor'),
    ).state;
    const loaded = reduce(waiting, { type: 'fileIndexLoaded', worktree: WORKTREE, files: FILES });
    const completion = assistOf(loaded)?.completion;
    expect(completion?.kind === 'file' ? completion.match?.items : null).toEqual([
      'docs/usage/workflow.md',
    ]);
  });

  it('closes the picker on Esc and keeps the composer open', () => {
    const run = pressKeys(composerState(), [...typeText('@src'), 'escape']);
    expect(assistOf(run.state)?.completion).toBeNull();
    expect(textOf(run.state)).toBe('@src');
    expect(run.state.popup).toBeNull();
  });
});

describe('slash commands', () => {
  it('lists the commands while the name is typed', () => {
    const run = pressKeys(composerState(), typeText('/me'));
    const completion = assistOf(run.state)?.completion;
    expect(completion?.kind === 'slash' ? completion.items.map((i) => i.label) : null).toEqual([
      '/merge',
    ]);
  });

  it('runs a picked command on Enter and closes the composer', () => {
    const run = pressKeys(composerState(), [...typeText('/di'), 'enter']);
    expect(run.calls.at(-1)).toEqual(call('openDiff', 'x'));
    expect(textOf(run.state)).toBeNull();
  });

  it('picks a command, then its value, then runs it', () => {
    const run = pressKeys(composerState(), [
      ...typeText('/mo'),
      'down',
      'enter',
      'down',
      'down',
      'enter',
    ]);
    expect(run.calls.at(-1)).toEqual(call('setPermissionMode', 'x', 'plan'));
  });

  it.each([
    ['/model opus', call('changeSessionChoice', 'x', { model: 'opus' })],
    ['/agent codex', call('changeSessionChoice', 'x', { agent: 'codex' })],
    ['/reasoning low', call('changeSessionChoice', 'x', { reasoning: 'low' })],
    ['/clear', call('clearContext', 'x')],
    ['/review', call('regenerateReview', 'x')],
    ['/merge', call('requestMerge', 'x')],
    ['/publish', call('requestPublish', 'x')],
  ])('runs %s', (text, expected) => {
    const run = pressKeys(composerState(bufferFrom(text)), ['enter']);
    expect(run.calls).toEqual([expected]);
  });

  it('shows an error line for an unknown command and keeps the text', () => {
    const run = pressKeys(composerState(), [...typeText('/frob'), 'enter']);
    expect(textOf(run.state)).toBe('/frob');
    expect(assistOf(run.state)?.error).toContain('Unknown command /frob');
    expect(run.calls).toEqual([]);
  });

  it('sends a prompt that only starts with a path', () => {
    const run = pressKeys(composerState(bufferFrom('/usr/bin/env is missing')), ['enter']);
    expect(run.calls).toEqual([call('sendPrompt', 'x', '/usr/bin/env is missing')]);
  });
});

describe('the prompt history', () => {
  it('shows older prompts with Up on an empty composer', () => {
    const run = pressKeys(composerState(), ['up', 'up']);
    expect(textOf(run.state)).toBe('fix the login bug');
  });

  it('comes back with Down, to an empty prompt past the newest', () => {
    const run = pressKeys(composerState(), ['up', 'up', 'down']);
    expect(textOf(run.state)).toBe('explain the cache');
    expect(textOf(pressKeys(run.state, ['down']).state)).toBe('');
  });

  it('moves the cursor instead when the prompt holds typed text', () => {
    const run = pressKeys(composerState(bufferFrom('one\ntwo')), ['up']);
    expect(textOf(run.state)).toBe('one\ntwo');
    expect(run.state.mode.kind === 'session' ? run.state.mode.composer?.cursor : null).toBe(3);
  });

  it('searches with Ctrl+R and takes the match on Enter', () => {
    const run = pressKeys(composerState(), ['ctrl+r', ...typeText('fix'), 'enter']);
    expect(textOf(run.state)).toBe('fix the login bug');
    expect(assistOf(run.state)?.search).toBeNull();
    expect(run.calls).toEqual([]);
  });

  it('finds an older match on Ctrl+R again', () => {
    const run = pressKeys(composerState(), ['ctrl+r', ...typeText('e'), 'ctrl+r', 'enter']);
    expect(textOf(run.state)).toBe('fix the login bug');
  });

  it('puts the text back when the search is canceled', () => {
    const run = pressKeys(composerState(bufferFrom('draft')), [
      'ctrl+r',
      ...typeText('add'),
      'escape',
    ]);
    expect(textOf(run.state)).toBe('draft');
    expect(run.state.popup).toBeNull();
  });
});

describe('images', () => {
  function paste(state: AppState, text: string): { calls: IntentCall[]; state: AppState } {
    const calls: IntentCall[] = [];
    let current = state;
    const ctx: KeyContext = {
      get state() {
        return current;
      },
      apply: (event) => {
        current = reduce(current, event);
      },
      intents: new Proxy({} as KeyContext['intents'], {
        get:
          (_t, method) =>
          (...args: unknown[]) =>
            calls.push({ method: method as IntentCall['method'], args }),
      }),
    };
    dispatchTerminalEvent(ctx, { type: 'paste', text });
    return { calls, state: current };
  }

  it('attaches a pasted image path instead of typing it', () => {
    const run = paste(composerState(), '/home/me/shot.png');
    expect(run.calls).toEqual([call('attachImage', 'x', '/home/me/shot.png')]);
    expect(textOf(run.state)).toBe('');
  });

  it('sends the attached images with the prompt', () => {
    const attached = reduce(composerState(bufferFrom('what is wrong here?')), {
      type: 'composerAttach',
      sessionId: 'x',
      image: '/grove/images/x/1-shot.png',
    });
    const run = pressKeys(attached, ['enter']);
    expect(run.calls).toEqual([
      call('sendPrompt', 'x', 'what is wrong here?', ['/grove/images/x/1-shot.png']),
    ]);
  });

  it('asks for the clipboard image on Ctrl+V', () => {
    expect(pressKeys(composerState(), ['ctrl+v']).calls).toEqual([
      call('pasteClipboardImage', 'x'),
    ]);
  });
});
