import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { SHARE_MODE_KEY, SHARED_FOLDERS_KEY } from '../../src/domain/shared-folders.js';
import { agentEnv } from '../helpers/agent-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';
import { agentWorldEnv, git, makeRepo, runGrove, startGrove } from '../helpers/grove-env.js';
import { withStore } from '../helpers/seed.js';

// The Disk view in the built Grove, in tmux: a session made by `grove run`
// in a project that shares node_modules as a link; D on the Sessions tab
// walks its worktree in the background and shows its size, the link (not
// counted) and that gc keeps it (live work); Esc closes it. The session
// view walks its own worktree when it opens.

const e2e = setUpE2eWorld();
let env: Record<string, string>;
let repo: string;

beforeEach(async () => {
  env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
  repo = makeRepo(e2e.world);
  mkdirSync(join(repo, 'node_modules', 'big'), { recursive: true });
  writeFileSync(join(repo, 'node_modules', 'big', 'blob.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
  writeFileSync(join(repo, '.gitignore'), 'node_modules\n');
  git(repo, 'add', '.gitignore');
  git(repo, 'commit', '-q', '-m', 'Ignore node_modules');
  await withStore(e2e.world.groveHome, async (store) => {
    const project = await store.projects.upsert(repo, basename(repo), Date.now());
    await store.settings.setProject(project.id, SHARED_FOLDERS_KEY, 'node_modules');
    await store.settings.setProject(project.id, SHARE_MODE_KEY, 'symlink');
  });
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Look around the project') },
    { when: 'Look around', text: reply('Looked.') },
  ]);
});

describe('the Disk view', () => {
  it("opens with D, shows the worktree's size and its linked node_modules, and closes with Esc", async () => {
    const run = await runGrove(env, repo, ['run', 'Look around', '--output', 'json']);
    expect(run.code, run.out).toBe(0);
    const worktree = (JSON.parse(run.out) as { worktree: string }).worktree;
    expect(lstatSync(join(worktree, 'node_modules')).isSymbolicLink()).toBe(true);

    const t = await startGrove(e2e.world, repo, { env, columns: 120, rows: 30 });
    e2e.term = t;
    await t.waitFor('Look around the project');

    await t.keys('D');
    const screen = await t.waitFor('Disk: 1 worktree', 15_000);
    expect(screen).toMatch(
      /▶ \d+(\.\d)? (B|kB|MB)\s+\d+(\.\d)? (B|kB|MB)\s+kept: live\s+Look around the project/,
    );
    expect(screen).toContain('Shared: node_modules linked to the main checkout (not counted).');
    expect(screen).toContain('gc would reclaim 0 B');
    // The 3 MB behind the link are not the worktree's.
    expect(screen).not.toMatch(/▶ [3-9](\.\d)? MB/);

    // Back in the list, the worktree's size is its last column.
    await t.keys('Escape');
    await t.waitForGone('Disk: 1 worktree');
    const list = await t.waitFor(/Timer\s+Disk/);
    expect(list).toMatch(/Look around the project.*\s\d+(\.\d)?[KM]\s*$/m);
    expect(readFileSync(join(repo, 'node_modules', 'big', 'blob.bin')).length).toBe(
      3 * 1024 * 1024,
    );
  });

  it("the session view shows its worktree's disk use once Enter opens it, without the Disk view", async () => {
    const run = await runGrove(env, repo, ['run', 'Look around', '--output', 'json']);
    expect(run.code, run.out).toBe(0);

    const t = await startGrove(e2e.world, repo, { env, columns: 120, rows: 30 });
    e2e.term = t;
    await t.waitFor('Look around the project');
    expect(await t.screen()).not.toMatch(/disk \d/);

    await t.keys('Enter');
    const view = await t.waitFor(/disk \d+(\.\d)? (B|kB|MB)/, 15_000);
    // The 3 MB behind the link are not the worktree's.
    expect(view).not.toMatch(/disk [3-9](\.\d)? MB/);
  });
});
