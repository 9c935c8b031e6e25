import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { onlyCliPath } from '../helpers/real-clis.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ResultSchema, ShowSchema } from './headless-schema.js';

// Agent fidelity seen from the outside: the built binary, the real agent
// CLIs, the fake model server, a real repository and store.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

/** A PATH on which Codex is the only agent CLI. */
function codexOnlyPath(): Record<string, string> {
  return { PATH: onlyCliPath(h.world.dir, 'codex') };
}

const TITLE = 'Write a title for a coding task';
const COMMIT = 'Write the git commit message for the changes';

async function showJson(id: string) {
  const run = await h.grove(['show', id, '--json']);
  expectExit(run, 0);
  return ShowSchema.parse(JSON.parse(run.stdout));
}

describe('utility prompts with only Codex installed', () => {
  it('writes the title and the commit message with Codex', async () => {
    const prompt = 'Create hello.txt with a greeting';
    h.server.script('openai', [
      { when: TITLE, text: reply('Greet the world from hello.txt') },
      { when: COMMIT, text: reply('Add the greeting file\n\nCreates hello.txt.') },
      { when: prompt, toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' } },
      { when: prompt, text: reply('Created it.') },
    ]);

    const run = await h.grove(['run', '--output', 'json', prompt], { env: codexOnlyPath() });

    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.agent).toBe('codex');
    const shown = await showJson(result.sessionId);
    expect(shown.title).toBe('Greet the world from hello.txt');
    // The command Codex ran to write the file is kept in the transcript as one tool line.
    const tools = shown.transcript
      .filter((e) => e.kind === 'tool')
      .map((e) => e.content.split('\n')[0]);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatch(/^Ran: printf .*hello\.txt' \(exit 0\)$/);
    expect(git(h.repo, 'log', '-1', '--format=%s', result.branch)).toBe('Add the greeting file');
    expect(h.server.modelRequests('anthropic')).toHaveLength(0);
  });

  it('says in one transcript line each when they fail, and commits under a clean summary line', async () => {
    const prompt =
      'fix the greeting: make `hello.txt` say hello to everyone in the whole wide world, and then some\n\nDetails: keep it short.';
    const rejected = {
      error: {
        status: 400,
        body: {
          error: {
            message: 'model not available for utility prompts',
            type: 'invalid_request_error',
          },
        },
      },
    };
    h.server.script('openai', [
      { when: TITLE, ...rejected },
      { when: COMMIT, ...rejected },
      {
        when: 'Details: keep it short',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      { when: 'Details: keep it short', text: reply('Fixed it.') },
    ]);

    const run = await h.grove(['run', '--output', 'json', prompt], { env: codexOnlyPath() });

    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    const notices = (await showJson(result.sessionId)).transcript.filter((e) =>
      e.content.startsWith('[Utility Error]'),
    );
    // The title is written beside the turn, so either failure may be said first.
    expect(notices.map((e) => e.content.split(':')[0]).sort()).toEqual([
      '[Utility Error] The commit message could not be written by codex (gpt-6-luna)',
      '[Utility Error] The title could not be written by codex (gpt-6-luna)',
    ]);
    expect(
      notices.every(
        (e) =>
          !e.content.includes('\n') &&
          e.content.includes('model not available for utility prompts'),
      ),
    ).toBe(true);
    const message = git(h.repo, 'log', '-1', '--format=%B', result.branch).trim();
    expect(message.split('\n')).toHaveLength(1);
    expect(message.length).toBeLessThanOrEqual(72);
    expect(message).toMatch(/^Fix the greeting: make hello\.txt say hello to everyone/);
    expect(message).not.toMatch(/[`…]|Details/);
  });
});

describe('a Gemini model request that fails and is retried', () => {
  it('shows each retry with its reason in --progress', async () => {
    // Gemini CLI's own retry limit, up from the tests' 1 (no retries).
    writeFileSync(
      join(h.world.home, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
        privacy: { usageStatisticsEnabled: false },
        general: { maxAttempts: 3 },
        telemetry: { enabled: false },
      }),
    );
    h.utilities();
    h.server.script('gemini', [
      { error: { status: 500 } },
      { error: { status: 500 } },
      { text: reply('It answered after all.') },
    ]);

    const run = await h.grove([
      'run',
      '--agent',
      'gemini',
      '--model',
      'gemini-test',
      '--progress',
      'say hello',
    ]);

    expectExit(run, 0);
    const retries = run.stderr
      .split('\n')
      .filter((line) => line.includes('Gemini CLI: model request failed'));
    expect(retries).toEqual([
      '… Gemini CLI: model request failed (scripted 500); retrying, attempt 2…',
      '… Gemini CLI: model request failed (scripted 500); retrying, attempt 3…',
    ]);
    expect(run.stdout).toContain('It answered after all.');
  });
});

describe('grove show and open questions', () => {
  it('prints the questions the agent asked, with their options', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Plan the greeting',
        text: reply('', {
          questions: [{ text: 'Which greeting should it say?', options: ['hello', 'hi'] }],
        }),
      },
    ]);
    const run = await h.grove(['run', '--output', 'json', 'Plan the greeting']);
    expectExit(run, 3); // the exit code of a turn that ends with questions
    const { sessionId } = ResultSchema.parse(JSON.parse(run.stdout));

    const shown = await h.grove(['show', sessionId]);

    expectExit(shown, 0);
    expect(shown.stdout).toContain(
      'Open questions (1; answer with grove reply):\n1. Which greeting should it say?\n   options: hello / hi\n',
    );
    expect((await showJson(sessionId)).questions).toEqual([
      { text: 'Which greeting should it say?', options: ['hello', 'hi'] },
    ]);
  });
});
