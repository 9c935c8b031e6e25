import { describe, expect, it } from 'vitest';
import type { AppState, QuestionState } from '../../src/app/state.js';
import {
  applyEdit,
  bufferFrom,
  editActionForKey,
  emptyBuffer,
  insertText,
  type TextBuffer,
} from '../../src/domain/composer.js';
import { parseKeyId } from '../../src/domain/keys.js';
import type { Session } from '../../src/domain/session.js';
import type { SessionStatus } from '../../src/domain/session-status.js';
import { bindingRows, pressKeys, typeInput, type IntentCall } from '../helpers/keys.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// The prompt composer and the question panel: typing, editing and sending.

const call = (method: IntentCall['method'], ...args: unknown[]): IntentCall => ({ method, args });

/** "fix the\nbug now" with the cursor after "bug no" (offset 14), typed so undo has history. */
const typed: TextBuffer = [...'fix the', '\n', 'bug now'].reduce(
  (b, part) => insertText(b, part),
  emptyBuffer,
);
const buffer: TextBuffer = { ...typed, cursor: 14, typing: false };

function composerState(
  composer: TextBuffer,
  status: SessionStatus = 'Review',
  fields: Partial<Session> = {},
): AppState {
  return appState({
    sessions: [makeSession(status, { id: 'x', ...fields })],
    mode: { kind: 'session', sessionId: 'x', scrollBack: 7, composer, question: null },
  });
}

const composerOf = (state: AppState): TextBuffer | null =>
  state.mode.kind === 'session' ? state.mode.composer : null;

/** What each editing key of the help table does to `buffer`, as text and cursor. */
const EDITS: Record<string, { text: string; cursor: number }> = {
  'alt+left': { text: 'fix the\nbug now', cursor: 12 },
  'alt+b': { text: 'fix the\nbug now', cursor: 12 },
  'ctrl+left': { text: 'fix the\nbug now', cursor: 12 },
  'alt+right': { text: 'fix the\nbug now', cursor: 15 },
  'alt+f': { text: 'fix the\nbug now', cursor: 15 },
  'ctrl+right': { text: 'fix the\nbug now', cursor: 15 },
  'ctrl+a': { text: 'fix the\nbug now', cursor: 8 },
  'ctrl+e': { text: 'fix the\nbug now', cursor: 15 },
  home: { text: 'fix the\nbug now', cursor: 0 },
  end: { text: 'fix the\nbug now', cursor: 15 },
  'ctrl+w': { text: 'fix the\nbug w', cursor: 12 },
  'alt+backspace': { text: 'fix the\nbug w', cursor: 12 },
  'ctrl+u': { text: 'fix the\nw', cursor: 8 },
  'ctrl+k': { text: 'fix the\nbug no', cursor: 14 },
  // Undo takes back the last typed word; there is nothing to redo yet.
  'ctrl+z': { text: 'fix the\n', cursor: 8 },
  'ctrl+y': { text: 'fix the\nbug now', cursor: 14 },
  'ctrl+shift+z': { text: 'fix the\nbug now', cursor: 14 },
};

describe('the prompt composer', () => {
  it.each(bindingRows('composer').filter(([, action]) => action === 'edit'))(
    'edits with %s as its help says',
    (key) => {
      const run = pressKeys(composerState(buffer), [key]);
      const after = composerOf(run.state);
      // Every key the help lists as an edit is one to the shared editor.
      expect(editActionForKey(parseKeyId(key))).not.toBeNull();
      const expected = EDITS[key];
      if (expected) expect({ text: after?.text, cursor: after?.cursor }).toEqual(expected);
      else expect(after).toEqual(applyEdit(buffer, editActionForKey(parseKeyId(key)) ?? 'left'));
      expect(run.calls).toEqual([]);
    },
  );

  it.each(bindingRows('composer').filter(([, action]) => action === 'newline'))(
    'inserts a new line on %s',
    (key) => {
      const run = pressKeys(composerState(bufferFrom('one')), [key]);
      expect(composerOf(run.state)?.text).toBe('one\n');
      expect(run.calls).toEqual([]);
    },
  );

  it.each(bindingRows('composer').filter(([, action]) => action === 'send'))(
    'sends the trimmed prompt on %s and closes the composer',
    (key) => {
      const run = pressKeys(composerState(bufferFrom('  fix it \n')), [key]);
      expect(run.calls).toEqual([call('sendPrompt', 'x', 'fix it')]);
      expect(run.state.mode).toEqual({
        kind: 'session',
        sessionId: 'x',
        scrollBack: 0,
        composer: null,
        question: null,
      });
    },
  );

  it('sends nothing when the prompt is blank', () => {
    const before = composerState(bufferFrom('  \n '));
    const run = pressKeys(before, ['enter']);
    expect(run.calls).toEqual([]);
    expect(run.state).toBe(before);
  });

  it.each(bindingRows('composer').filter(([, action]) => action === 'cancel'))(
    'closes an empty composer on %s and keeps a started session',
    (key) => {
      const run = pressKeys(composerState(emptyBuffer), [key]);
      expect(composerOf(run.state)).toBeNull();
      expect(run.calls).toEqual([]);
    },
  );

  it('asks before closing a composer with text, offering to keep it as the draft', () => {
    const run = pressKeys(composerState(buffer), ['escape']);
    expect(composerOf(run.state)).toEqual(buffer);
    expect(run.state.popup).toMatchObject({
      kind: 'confirm',
      intent: { kind: 'closeComposer', sessionId: 'x', text: 'fix the\nbug now' },
    });
    expect(run.calls).toEqual([]);
  });

  it('keeps the text as the draft when the close is confirmed', () => {
    const run = pressKeys(composerState(buffer), ['escape', 'y']);
    expect(composerOf(run.state)).toBeNull();
    expect(run.calls).toEqual([call('saveDraft', 'x', 'fix the\nbug now')]);
  });

  it('restores the draft when the composer opens again', () => {
    const state = { ...composerState(emptyBuffer), drafts: { x: 'half a prompt' } };
    const closed = { ...state, mode: { ...state.mode, composer: null } as AppState['mode'] };
    const run = pressKeys(closed, ['enter']);
    expect(composerOf(run.state)?.text).toBe('half a prompt');
  });

  it('deletes an unstarted draft session when its first prompt is abandoned', () => {
    const run = pressKeys(composerState(emptyBuffer, 'Draft', { prompt: null }), ['escape']);
    expect(run.calls).toEqual([call('discardUnstarted', 'x')]);
  });

  it.each(bindingRows('composer').filter(([, action]) => action === 'mode'))(
    'moves to the next permission mode on %s, keeping the text',
    (key) => {
      const run = pressKeys(composerState(buffer, 'Review', { permissionMode: 'read_only' }), [
        key,
      ]);
      expect(run.calls).toEqual([call('setPermissionMode', 'x', 'plan')]);
      expect(composerOf(run.state)).toEqual(buffer);
    },
  );

  it('types printable keys, j and k and q included, at the cursor', () => {
    const run = pressKeys(composerState(emptyBuffer), ['j', 'k', 'q', 'space', 'Q', '?']);
    expect(composerOf(run.state)?.text).toBe('jkq Q?');
    expect(run.calls).toEqual([]);
  });

  it('decodes raw terminal input: typed text, Alt+Enter for a new line, Enter to send', () => {
    const run = typeInput(composerState(emptyBuffer), 'one\x1b\rtwo\r');
    expect(run.calls).toEqual([call('sendPrompt', 'x', 'one\ntwo')]);
  });

  it('inserts a bracketed paste as it is, line breaks included', () => {
    const run = typeInput(composerState(emptyBuffer), '\x1b[200~a\nb\x1b[201~');
    expect(composerOf(run.state)?.text).toBe('a\nb');
    expect(run.calls).toEqual([]);
  });

  it.each(['ctrl+x', 'ctrl+t', 'f5'])('ignores %s', (key) => {
    const before = composerState(buffer);
    const run = pressKeys(before, [key]);
    expect(run.state).toBe(before);
    expect(run.calls).toEqual([]);
  });
});

const questions = [
  { text: 'Which database?', options: ['SQLite', 'Postgres'] },
  { text: 'Add tests?', options: ['Yes'] },
];

function questionState(question: Partial<QuestionState> = {}): AppState {
  return appState({
    sessions: [makeSession('Question', { id: 'x', questions })],
    mode: {
      kind: 'session',
      sessionId: 'x',
      scrollBack: 0,
      composer: null,
      question: { index: 0, selected: 0, answers: [], buffer: emptyBuffer, ...question },
    },
  });
}

const questionOf = (state: AppState): QuestionState | null =>
  state.mode.kind === 'session' ? state.mode.question : null;

describe('the question panel', () => {
  it.each(bindingRows('question').filter(([, action]) => action === 'down'))(
    'highlights the next option on %s',
    (key) => {
      const run = pressKeys(questionState(), [key]);
      expect(questionOf(run.state)?.selected).toBe(1);
    },
  );

  it.each(bindingRows('question').filter(([, action]) => action === 'up'))(
    'highlights the previous option on %s',
    (key) => {
      const run = pressKeys(questionState({ selected: 1 }), [key]);
      expect(questionOf(run.state)?.selected).toBe(0);
    },
  );

  it.each(bindingRows('question').filter(([, action]) => action === 'answer'))(
    'answers with the highlighted option on %s and moves to the next question',
    (key) => {
      const run = pressKeys(questionState({ selected: 1 }), [key]);
      expect(questionOf(run.state)).toMatchObject({ index: 1, selected: 0, answers: ['Postgres'] });
      expect(run.calls).toEqual([]);
    },
  );

  it.each(bindingRows('question').filter(([, action]) => action === 'end'))(
    'ends the round without replying on %s',
    (key) => {
      const run = pressKeys(questionState(), [key]);
      expect(questionOf(run.state)).toBeNull();
      expect(run.calls).toEqual([call('endQuestions', 'x')]);
    },
  );

  it('sends every answer after the last question', () => {
    const run = pressKeys(questionState(), ['enter', 'enter']);
    expect(run.calls).toEqual([call('answerQuestions', 'x', ['SQLite', 'Yes'])]);
    expect(questionOf(run.state)).toBeNull();
  });

  it('types j and k into the free-text line past the last option', () => {
    const run = pressKeys(questionState(), ['down', 'down', 'j', 'k', 'enter']);
    expect(questionOf(run.state)?.answers).toEqual(['jk']);
  });

  it('does not move past the free-text line', () => {
    const run = pressKeys(questionState(), ['down', 'down', 'down', 'down']);
    expect(questionOf(run.state)?.selected).toBe(2);
  });
});
