import { expect } from 'vitest';
import type { Session } from '../../src/domain/session.js';
import { git } from './grove-env.js';
import { grove, load, model, repo, setUpGitHubWorld, workId } from './github-world.js';

// The publish tests' world (test/integration/publish*.test.ts): the GitHub
// world of github-world.ts with one session whose finished turn wrote hello.txt.

// Not shaped like a GitHub token, so only Grove's own handling keeps it out of files.
export const TOKEN = 'grove-secret-7f3a9c21d4e8b605';

export const reply = (answer: string, session = `session: ${answer}`) =>
  JSON.stringify({ answer, questions: [], summary: { turn: `turn: ${answer}`, session } });

/** A session with one finished turn that wrote hello.txt. */
export async function sessionWithWork(): Promise<Session> {
  model.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Add a greeting file') },
    {
      when: 'Write the git commit message for the changes',
      text: reply('Add the greeting files\n\nCreates hello.txt for the greeting.'),
    },
    {
      when: 'Create hello.txt',
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
    },
    {
      when: 'Create hello.txt',
      text: reply('I created hello.txt.', 'Created hello.txt with a greeting.'),
    },
  ]);
  const run = await grove(['run', '--output', 'json', 'Create hello.txt with a greeting']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
  const session = await load(sessionId);
  expect(session.status).toBe('Review');
  expect(git(repo, 'show', `${session.branch}:hello.txt`)).toBe('hello');
  return session;
}

/** The session of sessionWithWork, from the snapshot: every test starts from it. */
export async function sessionAfterTurn(): Promise<Session> {
  const session = await load(workId);
  expect(session.status).toBe('Review');
  expect(git(repo, 'show', `${session.branch}:hello.txt`)).toBe('hello');
  return session;
}

/** Registers the file's hooks: the world and its session are made once, put back before each test. */
export function setUpPublishWorld(): void {
  setUpGitHubWorld(TOKEN, async () => (await sessionWithWork()).id);
}
