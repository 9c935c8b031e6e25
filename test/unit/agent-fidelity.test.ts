import { describe, expect, it } from 'vitest';
import { fallbackCommitMessage } from '../../src/app/services/prompts.js';
import { modelChoice } from '../../src/app/services/sessions.js';
import { conversationHistory } from '../../src/app/services/turn.js';
import { modelRetries } from '../../src/domain/settings.js';
import { replayNotice, replayPrompt } from '../../src/infra/agent/acp/transcript-replay.js';
import { questionBadge } from '../../src/ui/pages/SessionsPage.js';

describe('the agent of a role the person has not chosen', () => {
  it.each([
    ['codex', ['codex'], 'fast', 'codex'],
    ['gemini', ['gemini'], 'review', 'gemini'],
    ['codex and gemini', ['codex', 'gemini'], 'main', 'codex'],
    ['all three', ['claude', 'codex', 'gemini'], 'fast', 'claude'],
    ['none', [], 'fast', 'claude'],
  ] as const)('follows the installed agents (%s)', (_what, installed, role, agent) => {
    expect(modelChoice({}, role, installed).agent).toBe(agent);
  });

  it('follows the main agent the person chose, when it is installed', () => {
    expect(modelChoice({ 'main.agent': 'gemini' }, 'fast', ['claude', 'gemini'])).toEqual({
      agent: 'gemini',
      model: 'gemini-3.5-flash-lite',
      reasoning: 'default',
    });
  });

  it('keeps an agent the person chose for the role, installed or not', () => {
    expect(modelChoice({ 'fast.agent': 'claude' }, 'fast', ['codex']).agent).toBe('claude');
  });

  it('is Claude Code when nobody looked for installed agents', () => {
    expect(modelChoice({}, 'fast').agent).toBe('claude');
  });
});

describe('the fallback commit message', () => {
  it.each([
    ['the first line only', 'Fix the login bug\n\nIt fails on Safari.', 'Fix the login bug'],
    ['no markdown marks', '## Add `retry` to *fetch*', 'Add retry to fetch'],
    ['no trailing punctuation or ellipsis', 'make the tests pass…', 'Make the tests pass'],
    [
      'a word boundary within 72 characters',
      'fix the greeting: make hello.txt say hello to everyone in the whole wide world, and then some',
      'Fix the greeting: make hello.txt say hello to everyone in the whole wide',
    ],
    ['a default for nothing', '  \n ', 'Grove session changes'],
  ])('is %s', (_what, source, subject) => {
    const message = fallbackCommitMessage(source);

    expect(message).toBe(subject);
    expect(message.length).toBeLessThanOrEqual(72);
  });
});

describe('replaying a lost conversation', () => {
  const history = [
    { role: 'user' as const, text: 'remember PELICAN' },
    { role: 'agent' as const, text: 'Remembered.' },
    { role: 'user' as const, text: 'and HERON' },
    { role: 'agent' as const, text: 'Both remembered.' },
  ];

  it('puts the earlier prompts and answers, oldest first, ahead of the new prompt', () => {
    const replay = replayPrompt(history, 'which birds?');

    expect(replay.turns).toBe(2);
    expect(replay.prompt.indexOf('remember PELICAN')).toBeLessThan(
      replay.prompt.indexOf('Both remembered.'),
    );
    expect(replay.prompt.endsWith('\n\nwhich birds?')).toBe(true);
  });

  it('keeps the newest part when the conversation is too long, and says how much is left out', () => {
    const replay = replayPrompt(history, 'which birds?', 30);

    expect(replay.prompt).not.toContain('remember PELICAN');
    expect(replay.prompt).toContain('and HERON');
    expect(replay.prompt).toContain('(2 earlier messages are left out.)');
  });

  it('sends the prompt alone when there is nothing to replay, and says so', () => {
    expect(replayPrompt([], 'hello')).toEqual({ prompt: 'hello', turns: 0 });
    expect(replayNotice('Gemini', 0)).toContain('no earlier conversation');
  });

  it('takes only prompts and answers from the transcript', () => {
    const entries = [
      { position: 0, kind: 'user_prompt' as const, content: 'p', createdAt: 0 },
      { position: 1, kind: 'tool' as const, content: 'Ran: ls (exit 0)', createdAt: 0 },
      { position: 2, kind: 'notice' as const, content: '[Commit] x', createdAt: 0 },
      { position: 3, kind: 'assistant_answer' as const, content: 'a', createdAt: 0 },
    ];

    expect(conversationHistory(entries)).toEqual([
      { role: 'user', text: 'p' },
      { role: 'agent', text: 'a' },
    ]);
  });
});

describe('the retry budget setting', () => {
  it("is the agent CLI's own unless set", () => {
    expect(modelRetries({})).toBeNull();
    expect(modelRetries({ 'agents.modelRetries': '2' })).toBe(2);
    expect(modelRetries({ 'agents.modelRetries': 'lots' })).toBeNull();
  });
});

describe('the question badge of a list row', () => {
  it('counts the open questions', () => {
    expect(questionBadge({ questions: [] })).toBe('');
    expect(questionBadge({ questions: [{ text: 'a?', options: [] }] })).toBe(' [1 question]');
    expect(
      questionBadge({
        questions: [
          { text: 'a?', options: [] },
          { text: 'b?', options: [] },
        ],
      }),
    ).toBe(' [2 questions]');
  });
});
