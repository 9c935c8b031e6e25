import { expect } from 'vitest';
import type { Session } from '../../src/domain/session.js';
import { git } from './grove-env.js';
import { grove, load, model, repo, setUpGitHubWorld, workId } from './github-world.js';

// The review-thread tests' world (test/integration/review-threads*.test.ts):
// the GitHub world of github-world.ts with one session whose turn wrote
// hello.txt, published by each test that needs a pull request.

export const TOKEN = 'grove-secret-threads-5c1e';
export const reply = (answer: string, turn = `turn: ${answer}`) =>
  JSON.stringify({ answer, questions: [], summary: { turn, session: `session: ${answer}` } });

/** A session whose one turn wrote hello.txt (in beforeAll, kept in the snapshot); its id. */
async function sessionWithWork(): Promise<string> {
  model.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Add a greeting file') },
    { when: 'Write the git commit message for the changes', text: reply('Add the greeting file') },
    {
      when: 'Create hello.txt',
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
    },
    { when: 'Create hello.txt', text: reply('I created hello.txt.') },
  ]);
  const run = await grove(['run', '--output', 'json', 'Create hello.txt with a greeting']);
  expect(run.code).toBe(0);
  const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
  const session = await load(sessionId);
  expect(session.status).toBe('Review');
  expect(git(repo, 'show', `${session.branch}:hello.txt`)).toBe('hello');
  return sessionId;
}

/** The snapshot's session, published (pull request #1). */
export async function publishedSession(): Promise<Session> {
  const published = await grove(['publish', workId]);
  expect(published.code).toBe(0);
  return load(workId);
}

/** The agent's turn on the threads: it edits hello.txt and says so. */
export function scriptThreadsTurn(): void {
  model.script('anthropic', [
    {
      when: 'Write the git commit message for the changes',
      text: reply('Add a friendlier greeting file'),
    },
    {
      when: 'Reviewers left',
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'Hello, world!\n' },
    },
    {
      when: 'Reviewers left',
      text: reply(
        'Capitalised the greeting and added the world.',
        'Made the greeting in hello.txt friendlier.',
      ),
    },
  ]);
}

/** Registers the file's hooks: the world and its session are made once, put back before each test. */
export function setUpReviewThreadsWorld(): void {
  setUpGitHubWorld(TOKEN, sessionWithWork);
}
