import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { replyWith, sameSummary } from '../helpers/fake-model/reply.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  bundleHarness,
  checkoutState,
  commitFiles,
  installGitPause,
  killAtPause,
  pauseAt,
  pushFromElsewhere,
  restartGrove,
  startHarness,
  type Restarted,
} from '../helpers/faults.js';
import { agentWorldEnv, git, makeRepo, makeWorld, type GroveWorld } from '../helpers/grove-env.js';

// kill -9 of a Grove syncing its main checkout (`s`: pull with rebase, the
// main agent resolving conflicts, push) at each step, then a restart. The
// sync has no headless command, so a bundled harness runs Grove's app core
// (helpers/fault-harness.ts) and is the process that is killed.

let bundleDir: string;
let bundle: string;
let world: GroveWorld;
let repo: string;
let origin: string;
let server: FakeModelServer;
let env: Record<string, string>;
let restarted: Restarted | null = null;

const reply = replyWith(sameSummary);

beforeAll(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), 'grove-fault-harness-'));
  bundle = await bundleHarness(bundleDir);
});

afterAll(() => {
  rmSync(bundleDir, { recursive: true, force: true });
});

beforeEach(async () => {
  world = makeWorld();
  repo = makeRepo(world, 'project', true);
  origin = join(world.dir, 'project-origin.git');
  installGitPause(world);
  server = await startFakeModelServer();
  env = { ...agentWorldEnv(world, agentEnv(server, world.home)), HOME: world.home };
});

afterEach(async () => {
  await restarted?.close();
  restarted = null;
  await server.close();
  world.cleanup();
});

/** Our commit on main conflicts with one pushed from elsewhere; returns our commit. */
function divergedMain(): string {
  commitFiles(world, repo, { 'shared.txt': 'one\ntwo\n' }, 'Add shared.txt');
  git(repo, 'push', '-q', 'origin', 'main');
  pushFromElsewhere(
    world,
    origin,
    { 'shared.txt': 'one\nTHEIRS\n', 'theirs.txt': 'theirs\n' },
    'Their edit',
  );
  return commitFiles(
    world,
    repo,
    { 'shared.txt': 'one\nOURS\n', 'ours.txt': 'ours\n' },
    'Our edit',
  );
}

async function syncKilledAt(pattern: string): Promise<void> {
  const pause = pauseAt(world, pattern);
  await killAtPause(startHarness(bundle, 'sync', repo, { ...env, ...pause.env }), pause.marker);
}

describe('kill -9 during a sync of the main checkout', () => {
  it('mid-pull, after the agent resolved the conflict: recovery aborts the rebase, main is back at our commit, and says so', async () => {
    const ours = divergedMain();
    const originHead = git(origin, 'rev-parse', 'main');
    server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto `origin/main`',
        toolCall: { kind: 'write_file', path: 'shared.txt', content: 'one\nTHEIRS\nOURS\n' },
      },
      { when: 'Grove is rebasing this branch onto `origin/main`', text: reply('Kept both.') },
    ]);

    await syncKilledAt(`${repo}|add -- shared.txt`);
    expect(checkoutState(repo).rebasing).toBe(true);
    restarted = await restartGrove(world, repo);

    expect(checkoutState(repo)).toEqual({
      porcelain: '',
      head: ours,
      branch: 'main',
      rebasing: false,
      merging: false,
      staged: '',
    });
    expect(git(repo, 'show', 'HEAD:ours.txt')).toBe('ours');
    expect(git(origin, 'rev-parse', 'main')).toBe(originHead);
    expect(restarted.checkoutNotices).toHaveLength(1);
    expect(restarted.checkoutNotices[0]).toMatch(
      /^\[Restart\] The sync of main in .* was interrupted while pulling .*Grove aborted its rebase: main is back at [0-9a-f]{12}/,
    );
  });

  it('during the push: nothing is lost, main holds both sides and is not mid-rebase', async () => {
    divergedMain();
    server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto `origin/main`',
        toolCall: { kind: 'write_file', path: 'shared.txt', content: 'one\nTHEIRS\nOURS\n' },
      },
      { when: 'Grove is rebasing this branch onto `origin/main`', text: reply('Kept both.') },
    ]);

    await syncKilledAt(`${repo}|push *`);
    restarted = await restartGrove(world, repo);

    expect(checkoutState(repo)).toMatchObject({
      porcelain: '',
      branch: 'main',
      rebasing: false,
      staged: '',
    });
    expect(git(repo, 'log', '--format=%s', 'main').split('\n').slice(0, 2)).toEqual([
      'Our edit',
      'Their edit',
    ]);
    expect(git(repo, 'show', 'main:shared.txt')).toBe('one\nTHEIRS\nOURS');
    expect(git(repo, 'show', 'main:ours.txt')).toBe('ours');
    expect(git(repo, 'show', 'main:theirs.txt')).toBe('theirs');
  });
});
