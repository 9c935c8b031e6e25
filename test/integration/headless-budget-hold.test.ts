import { describe, expect, it } from 'vitest';
import { withStore } from '../helpers/seed.js';
import { expectExit, fromSnapshot, reply, type Harness } from './headless-harness.js';
import { BudgetDecisionSchema, InboxSchema, ResultSchema, ShowSchema } from './headless-schema.js';

// A prompt held at a budget limit, cleared from a shell (issue 25, item 3): the built
// binary, the real Claude Code and the fake model server (120 input and 40 output tokens a
// request). `grove run` spends a turn's tokens, the session's token budget is set to 100,
// and `grove reply` is held (exit 5). `grove approve budget:ID` does what the budget
// popup's y does (raises the limit by another full budget on top of what is spent, and the
// held prompt runs); `grove deny budget:ID` drops the held prompt. Made once; each test
// gets the world back as it was (fromSnapshot).

const HELD = 'Second task for the budget';

async function heldSession(h: Harness): Promise<{ sessionId: string; projectId: number }> {
  h.utilities();
  h.server.script('anthropic', [{ when: 'First task for the budget', text: reply('First done.') }]);
  const first = await h.grove(['run', '--json', 'First task for the budget']);
  expectExit(first, 0);
  const { sessionId } = ResultSchema.parse(JSON.parse(first.stdout));
  const projectId = await withStore(h.world.groveHome, async (store) => {
    const [project] = await store.projects.list();
    if (!project) throw new Error('grove run made no project');
    await store.settings.setProject(project.id, 'budget.sessionTokens', '100');
    return project.id;
  });
  const held = await h.grove(['reply', sessionId.slice(0, 8), HELD]);
  expectExit(held, 5);
  return { sessionId, projectId };
}

const s = fromSnapshot(heldSession);

async function inbox() {
  const run = await s.h.grove(['inbox', '--json'], { cwd: s.h.world.dir });
  expectExit(run, 0);
  return InboxSchema.parse(JSON.parse(run.stdout));
}

async function show(id: string) {
  const run = await s.h.grove(['show', id, '--json']);
  expectExit(run, 0);
  return ShowSchema.parse(JSON.parse(run.stdout));
}

const sentToModel = (text: string): boolean =>
  s.h.server.modelRequests('anthropic').some((r) => JSON.stringify(r.body).includes(text));

const queued = (sessionId: string) =>
  withStore(s.h.world.groveHome, async (store) =>
    (await store.operations.listUnfinished(sessionId)).map((op) => op.payload['prompt']),
  );

describe('a prompt held at a budget limit', () => {
  it('is an inbox item whose action names grove approve and grove deny', async () => {
    const { sessionId } = s.made;
    const short = sessionId.slice(0, 8);

    const items = await inbox();

    expect(items.map((i) => [i.id, i.kind])).toEqual([[`budget:${sessionId}`, 'budget']]);
    expect(items[0]?.action).toBe(
      `Raise the limit and send it, or drop the prompt (Enter on the session, or grove approve budget:${short} / grove deny budget:${short})`,
    );
    expect(await queued(sessionId)).toEqual([HELD]);
  });
});

describe('grove approve budget:ID', () => {
  it("raises the session's limit by another full budget, runs the held prompt to its end, and the item leaves the inbox", async () => {
    const { sessionId } = s.made;
    const short = sessionId.slice(0, 8);
    s.h.utilities();
    s.h.server.script('anthropic', [{ when: HELD, text: reply('Second done.') }]);

    const run = await s.h.grove(['approve', `budget:${short}`]);

    expectExit(run, 0);
    const [line, ...answer] = run.stdout.split('\n');
    expect(line).toMatch(
      new RegExp(
        `^budget:${short}: raised the session's token budget to (\\d+) tokens \\(it held at 100 tokens\\); the held prompt runs: ${HELD}$`,
      ),
    );
    expect(answer.join('\n')).toContain('Second done.');
    expect(sentToModel(HELD)).toBe(true);
    expect(await queued(sessionId)).toEqual([]);
    expect(await inbox()).toEqual([]);
    const limits = await withStore(s.h.world.groveHome, (store) =>
      store.usage.sessionLimits(sessionId),
    );
    const raised = Number(/to (\d+) tokens/.exec(line ?? '')?.[1]);
    expect(limits).toEqual({ tokens: raised, usd: null });
    // Another full budget (100) on top of what the first turn spent (more than 100).
    expect(raised).toBeGreaterThan(200);
    expect((await show(short)).status).toBe('Review');
  });

  it('prints the decision as JSON once the turn has ended', async () => {
    const { sessionId } = s.made;
    s.h.utilities();
    s.h.server.script('anthropic', [{ when: HELD, text: reply('Second done.') }]);

    const run = await s.h.grove(['approve', `budget:${sessionId}`, '--json']);

    expectExit(run, 0);
    const decision = BudgetDecisionSchema.parse(JSON.parse(run.stdout));
    expect(decision).toMatchObject({
      item: `budget:${sessionId}`,
      sessionId,
      decision: 'raised',
      scope: 'session',
      measure: 'tokens',
      heldAt: 100,
      prompt: HELD,
      status: 'Review',
    });
    expect(decision.limit).toBeGreaterThan(200);
    expect(sentToModel(HELD)).toBe(true);
  });

  it("raises the project's setting when the project's limit holds the prompt", async () => {
    const { sessionId, projectId } = s.made;
    await withStore(s.h.world.groveHome, async (store) => {
      await store.settings.setProject(projectId, 'budget.sessionTokens', '');
      await store.settings.setProject(projectId, 'budget.projectTokens', '100');
    });
    s.h.utilities();
    s.h.server.script('anthropic', [{ when: HELD, text: reply('Second done.') }]);

    const run = await s.h.grove(['approve', `budget:${sessionId}`, '--json']);

    expectExit(run, 0);
    const decision = BudgetDecisionSchema.parse(JSON.parse(run.stdout));
    expect(decision).toMatchObject({ decision: 'raised', scope: 'project', heldAt: 100 });
    const settings = await withStore(s.h.world.groveHome, async (store) => ({
      project: await store.settings.getProject(projectId, 'budget.projectTokens'),
      session: await store.usage.sessionLimits(sessionId),
    }));
    expect(settings.project).toBe(String(decision.limit));
    expect(settings.session?.tokens ?? null).toBeNull();
    expect(sentToModel(HELD)).toBe(true);
  });
});

describe('grove deny budget:ID', () => {
  it('drops the held prompt, never sent; the session stays and the item leaves the inbox', async () => {
    const { sessionId } = s.made;
    const short = sessionId.slice(0, 8);
    const before = await show(short);

    const run = await s.h.grove(['deny', `budget:${short}`, '--json']);

    expectExit(run, 0);
    expect(BudgetDecisionSchema.parse(JSON.parse(run.stdout))).toEqual({
      item: `budget:${sessionId}`,
      sessionId,
      decision: 'dropped',
      scope: 'session',
      measure: 'tokens',
      heldAt: 100,
      limit: 100,
      prompt: HELD,
      status: 'Review',
    });
    expect(await queued(sessionId)).toEqual([]);
    expect(await inbox()).toEqual([]);
    const after = await show(short);
    expect(after).toMatchObject({ status: 'Review', branch: before.branch });
    expect(after.transcript.at(-1)).toMatchObject({
      kind: 'notice',
      content: `[Budget] The held prompt was dropped, never sent: ${HELD}.`,
    });
    expect(sentToModel(HELD)).toBe(false);
    const limits = await withStore(s.h.world.groveHome, (store) =>
      store.usage.sessionLimits(sessionId),
    );
    expect(limits).toBeNull();
  });

  it('says in words what it dropped', async () => {
    const short = s.made.sessionId.slice(0, 8);

    const run = await s.h.grove(['deny', `budget:${short}`]);

    expectExit(run, 0);
    expect(run.stdout).toBe(
      `budget:${short}: dropped the held prompt, never sent: ${HELD} (the session stays in Review)\n`,
    );
  });
});

describe('refusals', () => {
  it('approve and deny refuse in words, changing nothing, once nothing is held', async () => {
    const short = s.made.sessionId.slice(0, 8);
    expectExit(await s.h.grove(['deny', `budget:${short}`]), 0);
    const requests = s.h.server.modelRequests('anthropic').length;

    for (const command of ['approve', 'deny']) {
      const run = await s.h.grove([command, `budget:${short}`, '--json']);
      expectExit(run, 1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `grove: nothing is held at a budget limit in session ${short} (no prompt is queued); nothing was changed.\n`,
      );
    }
    expect(s.h.server.modelRequests('anthropic')).toHaveLength(requests);
    const limits = await withStore(s.h.world.groveHome, (store) =>
      store.usage.sessionLimits(s.made.sessionId),
    );
    expect(limits).toBeNull();
  });

  it('refuses an unknown session, a missing id and the flags of an agent request, holding the prompt still', async () => {
    const { sessionId } = s.made;
    const unknown = await s.h.grove(['approve', 'budget:ffffffff']);
    expectExit(unknown, 1);
    expect(unknown.stderr).toBe(
      "grove: nothing is held at a budget limit: no session matches 'ffffffff'.\n",
    );
    const empty = await s.h.grove(['deny', 'budget:']);
    expectExit(empty, 2);
    expect(empty.stderr).toBe(
      "grove: budget: needs the session's id (budget:ID, as grove inbox shows it)\n",
    );
    const flag = await s.h.grove(['approve', `budget:${sessionId}`, '--session']);
    expectExit(flag, 2);
    expect(flag.stderr).toMatch(
      new RegExp(
        `^grove: --session is for an agent's request; a budget hold is approved with grove approve budget:${sessionId}\n`,
      ),
    );

    expect(await queued(sessionId)).toEqual([HELD]);
    expect((await inbox()).map((i) => i.id)).toEqual([`budget:${sessionId}`]);
    expect(sentToModel(HELD)).toBe(false);
  });
});
