import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, runGrove, startGrove } from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';
import { withStore } from '../helpers/seed.js';

// Session hooks with the TUI and a headless command on one project, in the
// built Grove: the process that changes a session runs its hook, so a
// question asked by `grove run` and the review after `grove reply` each run
// the hook once, before the command exits, though the TUI shows both changes.

const e2e = setUpE2eWorld();

describe('session hooks with the TUI open', () => {
  it('runs the hook once per change a headless command makes, before it exits, and not again in the TUI', async () => {
    const env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
    const repo = makeRepo(e2e.world, 'here');
    const records = join(e2e.world.dir, 'hook-records.jsonl');
    const recorder = join(e2e.world.dir, 'record.cjs');
    writeFileSync(
      recorder,
      `const e = process.env;
require('fs').appendFileSync(process.argv[2], JSON.stringify({ event: e.GROVE_EVENT, detail: e.GROVE_EVENT_DETAIL, id: e.GROVE_SESSION_ID }) + '\\n');\n`,
    );
    const recorded = () =>
      existsSync(records)
        ? readFileSync(records, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Record<string, string>)
        : [];
    e2e.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Pick a greeting') },
      {
        when: 'Greet the user',
        text: reply('', { questions: [{ text: 'Which greeting?', options: ['hello', 'hi'] }] }),
      },
    ]);
    const t = await startGrove(e2e.world, repo, { env, columns: 120, rows: 30 });
    e2e.term = t;
    await t.waitFor('No sessions yet.');
    await withStore(e2e.world.groveHome, async (store) => {
      const project = (await store.projects.list()).find((p) => p.displayName === 'here');
      if (!project) throw new Error('the project is not stored');
      await store.settings.setProject(
        project.id,
        'hooks.command',
        `'${process.execPath}' '${recorder}' '${records}'`,
      );
      await store.settings.setProject(project.id, 'hooks.trusted', 'on');
    });

    const asked = await runGrove(env, repo, ['run', 'Greet the user']);
    expect(asked.code, asked.out).toBe(3);
    const id = /grove reply ([0-9a-f]{8})/.exec(asked.out)?.[1] ?? '';
    // The command waited for its hook.
    expect(recorded()).toEqual([
      { event: 'needs-you', detail: 'question', id: expect.stringMatching(`^${id}`) as string },
    ]);
    await t.waitFor('1 in the inbox');

    e2e.server.script('anthropic', [{ when: 'hello', text: reply('Greeted.') }]);
    const answered = await runGrove(env, repo, ['reply', id, 'hello']);
    expect(answered.code, answered.out).toBe(0);
    await t.waitForGone('1 in the inbox');

    expect(recorded().map((r) => r['event'])).toEqual(['needs-you', 'review']);
  });
});
