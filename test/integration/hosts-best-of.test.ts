import { afterAll, beforeAll, describe, expect } from 'vitest';
import { MAX_TURNS_KEY } from '../../src/domain/admission.js';
import { installAcpAgent } from '../helpers/acp-agent.js';
import { startClaudeHost, type ClaudeHost } from '../helpers/claude-host.js';
import { git } from '../helpers/grove-env.js';
import { withStore } from '../helpers/seed.js';
import { sshdIt, sshdProblem } from '../helpers/sshd.js';
import { waitUntil } from '../helpers/wait.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ListSchema, ShowSchema } from './headless-schema.js';

// Best of N on a host (issue 24), with the built binary, the test sshd of
// test/helpers/sshd.ts (a second unix user) and the real Claude Code there:
// `grove run -n 2 --host build` runs every variant on build, each admitted
// against build's maximum like any session; the check and the judge run
// here on the branches brought back, and the winner merges here.
// `--host auto` places each variant by its own first turn. A variant that
// cannot run there, or a host that is not one, is refused before anything
// is made.

const it = sshdIt();
const ROOT = `.grove-test-best-of-${process.pid}`;
const PROMPT = 'Fan out on build';
let h: Harness;
let host: ClaudeHost | undefined;
let env: Record<string, string>;

async function sessionIds(): Promise<string[]> {
  const ls = await h.grove(['ls', '--json', '--all'], { env });
  expectExit(ls, 0);
  return ListSchema.parse(JSON.parse(ls.stdout)).map((s) => s.sessionId);
}

async function shown(id: string): Promise<ReturnType<typeof ShowSchema.parse>> {
  const show = await h.grove(['show', id, '--json'], { env });
  expectExit(show, 0);
  return ShowSchema.parse(JSON.parse(show.stdout));
}

/** Two variants' turns: each writes the folder it runs in to where.txt, then answers. */
function scriptVariants(prompt: string): void {
  // The variants may ask at once: a request that holds the command's result gets the answer.
  const turn = [
    { when: 'pwd > where.txt', text: reply('Wrote where.txt.') },
    { when: prompt, toolCall: { kind: 'shell' as const, command: 'pwd > where.txt' } },
  ];
  h.server.script('anthropic', [...turn, ...turn]);
}

/** Starts `grove run -n 2 …`, and once its two variants exist, scripts the judge's ranking of them (the first best). */
async function bestOfTwo(
  args: readonly string[],
): Promise<{ run: Awaited<ReturnType<Harness['grove']>>; variants: string[] }> {
  const before = new Set(await sessionIds());
  const running = h.start(['run', '-n', '2', ...args, '--output', 'json', PROMPT], { env });
  const variants = await waitUntil(
    'the two variants',
    async () => {
      const made = (await sessionIds()).filter((id) => !before.has(id));
      return made.length === 2 ? made : undefined;
    },
    60_000,
  );
  const ranking = variants.map((id, i) => ({ session: id, rank: i + 1, reason: `variant ${i}` }));
  h.server.script('anthropic', [
    {
      when: 'You are judging',
      text: reply(`\`\`\`json\n${JSON.stringify(ranking)}\n\`\`\``),
    },
  ]);
  return { run: await running.done, variants };
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  host = await startClaudeHost(h.server.url);
  env = { GROVE_SSH_CONFIG: host.sshd.config };
  expectExit(
    await h.grove(['host', 'add', 'build', host.sshd.alias, '--root', ROOT, '--max', '1'], {
      env,
    }),
    0,
  );
  // The project is registered by its first command; the check runs here, in each variant's worktree.
  expectExit(await h.grove(['ls', '--json'], { env }), 0);
  await withStore(h.world.groveHome, async (store) => {
    const [project] = await store.projects.list();
    if (project) await store.settings.setProject(project.id, 'check.command', 'test -s where.txt');
  });
}, 60_000);

afterAll(async () => {
  if (!host) return;
  await host.close(ROOT);
  await h.close();
});

describe('best of N on a host', () => {
  it('runs every variant on the named host, one at a time by its maximum, then checks, judges and merges here', async () => {
    scriptVariants(PROMPT);
    const { run, variants } = await bestOfTwo(['--host', 'build', '--progress']);
    expectExit(run, 0);
    // Said at once, before either variant starts.
    expect(run.stderr).toContain(
      'build runs at most 1 turn at once and 0 run there now: 1 of the 2 variants start now and the others wait in the queue for slots there (grove host set build max N gives it more).',
    );
    const result = JSON.parse(run.stdout) as {
      status: string;
      ranking: { session: string; check: { exitCode: number } | null }[];
    };
    expect(result.status).toBe('ranked');
    expect(result.ranking.map((r) => [r.session, r.check?.exitCode])).toEqual(
      variants.map((id) => [id, 0]),
    );
    const admissions: string[] = [];
    for (const id of variants) {
      const s = await shown(id);
      expect(s.host).toBe('build');
      // The agent ran in the variant's worktree on the host; the file came back on the branch.
      expect(git(h.repo, 'show', `${s.branch}:where.txt`)).toMatch(
        new RegExp(`/${ROOT}/worktrees/[^/]+/${id}$`),
      );
      expect(host?.sshd.ssh(`cat ${ROOT}/worktrees/*/${id}/where.txt`)).toContain(id);
      admissions.push(
        ...s.transcript.map((e) => e.content).filter((c) => c.startsWith('[Admission]')),
      );
    }
    // build runs one turn at a time: the second variant waited for its slot, in words.
    expect(admissions).toEqual([
      '[Admission] The turn is queued, waiting for a turn slot on build: 1 of 1 running.',
    ]);
    // The winner lands here as any session does.
    const [winner] = variants;
    expectExit(await h.grove(['merge', winner ?? '', '--json'], { env }), 0);
    expect(git(h.repo, 'show', 'HEAD:where.txt')).toContain(winner);
  }, 300_000);

  it('places each variant of an auto best of N by its own first turn', async () => {
    await withStore(h.world.groveHome, (store) => store.settings.setGlobal(MAX_TURNS_KEY, '0'));
    expectExit(await h.grove(['host', 'set', 'build', 'max', '2'], { env }), 0);
    try {
      scriptVariants(PROMPT);
      const { run, variants } = await bestOfTwo(['--host', 'auto']);
      expectExit(run, 0);
      for (const id of variants) {
        const s = await shown(id);
        expect(s.host).toBe('build');
        expect(s.transcript.map((e) => e.content)).toContainEqual(
          expect.stringMatching(
            /^\[Placement\] The session runs on build \(ssh \S+; load \d+\.\d\d, \d+\.\d GB free, 2 turns at most\)\. No room elsewhere: this machine: 0 of 0 running\.$/,
          ),
        );
        expect(git(h.repo, 'show', `${s.branch}:where.txt`)).toMatch(
          new RegExp(`/${ROOT}/worktrees/[^/]+/${id}$`),
        );
      }
    } finally {
      await withStore(h.world.groveHome, (store) => store.settings.setGlobal(MAX_TURNS_KEY, ''));
      expectExit(await h.grove(['host', 'set', 'build', 'max', '1'], { env }), 0);
    }
  }, 300_000);

  it("says at once that a single session's turn waits on a host at its own maximum, and runs it once there is room", async () => {
    expectExit(await h.grove(['host', 'set', 'build', 'max', '0'], { env }), 0);
    const prompt = 'Write where on a full build';
    h.server.script('anthropic', [
      { when: 'pwd > where.txt', text: reply('Wrote where.txt.') },
      { when: prompt, toolCall: { kind: 'shell', command: 'pwd > where.txt' } },
    ]);
    const running = h.start(['run', '--host', 'build', '--progress', '--output', 'json', prompt], {
      env,
    });
    const said =
      'build runs at most 0 turns at once and 0 run there now: the turn waits in the queue for a slot there (grove host set build max N gives it more).';
    await waitUntil('the words', () => running.stderr().includes(said), 60_000);
    expectExit(await h.grove(['host', 'set', 'build', 'max', '1'], { env }), 0);
    expectExit(await running.done, 0);
  }, 180_000);

  it('refuses a variant that cannot run on the host, and a host that is not one, before making anything', async () => {
    installAcpAgent(h.world);
    const before = await sessionIds();
    const acp = await h.grove(
      ['run', '-n', '2', '--agents', 'claude,tiny', '--host', 'build', 'Mixed fan-out'],
      { env },
    );
    expectExit(acp, 2);
    expect(acp.stderr).toContain(
      'only Claude Code, Codex and Gemini CLI run on hosts yet, not acp:tiny (Grove starts the agents of agents.json on this machine only',
    );
    expect(acp.stderr).toContain('Nothing was started.');
    const unknown = await h.grove(['run', '-n', '2', '--host', 'nope', 'Nowhere fan-out'], {
      env,
    });
    expectExit(unknown, 2);
    expect(unknown.stderr).toContain("no host is named 'nope' (hosts: build)");
    expect(await sessionIds()).toEqual(before);
    expect(
      h.server.requests.some((r) => /Mixed fan-out|Nowhere fan-out/.test(JSON.stringify(r.body))),
    ).toBe(false);
  }, 120_000);
});
