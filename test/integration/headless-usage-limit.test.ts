import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withStore } from '../helpers/seed.js';
import { onlyCliPath } from '../helpers/real-clis.js';
import {
  expectExit,
  harness,
  reply,
  show,
  until,
  type Harness,
  type Running,
} from './headless-harness.js';
import { InboxSchema, ShowSchema, UsageDecisionSchema } from './headless-schema.js';

// A prompt that waits for its agent's usage limit, dropped from a shell (issue 25): the
// built binary, the real Codex CLI and the fake model server answering the prompt with
// OpenAI's real usage_limit_reached response (resets_in_seconds). A `grove run` waits for
// the reset; `grove deny usage:ID`, run from another process, drops the waiting prompt, so it
// is never sent, not when the limit lifts either. `grove approve usage:ID` refuses: the
// limit is the provider's.

const PROMPT = 'Task behind the usage limit';
const TITLE = 'Write a title for a coding task';

let h: Harness;
let waiting: Running | undefined;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  if (waiting && waiting.child.exitCode === null && waiting.child.signalCode === null) {
    waiting.child.kill('SIGINT');
    await waiting.done;
  }
  waiting = undefined;
  await h.close();
});

const codexOnly = (): Record<string, string> => ({ PATH: onlyCliPath(h.world.dir, 'codex') });

/** OpenAI's answer when the plan's usage limit is reached, lifting in `seconds`. */
function usageLimit(seconds: number) {
  return {
    status: 429,
    body: {
      error: {
        type: 'usage_limit_reached',
        message: 'The usage limit has been reached',
        plan_type: 'plus',
        resets_at: Math.floor(Date.now() / 1000) + seconds,
        resets_in_seconds: seconds,
      },
    },
  };
}

/** The turn's requests for the prompt (Grove's title request quotes it too, and may come late). */
const promptRequests = (): number =>
  h.server.modelRequests('openai').filter((r) => {
    const body = JSON.stringify(r.body);
    return body.includes(PROMPT) && !body.includes(TITLE);
  }).length;

/**
 * Starts `grove run` with Codex on a prompt its usage limit stops, lifting in `seconds`
 * (the prompt would be answered after the reset), and resolves once the prompt waits.
 */
async function waitingSession(
  seconds: number,
): Promise<{ sessionId: string; operationId: string; until: number }> {
  h.server.script('openai', [
    { when: TITLE, text: reply('Work behind the limit') },
    { when: PROMPT, error: usageLimit(seconds) },
    { when: PROMPT, text: reply('Sent after the reset.') },
  ]);
  waiting = h.start(['run', '--agent', 'codex', '--json', '--progress', PROMPT], {
    env: codexOnly(),
  });
  // What the person sees in that shell first; then the item in grove inbox, another process.
  await until(
    'grove run saying the prompt waits for the usage limit',
    () => {
      if (waiting?.child.exitCode !== null)
        throw new Error(`grove run ended:\n${waiting?.stderr() ?? ''}`);
      return waiting.stderr().includes('(a usage limit); it runs then');
    },
    90_000,
  );
  const item = (await inbox()).find((i) => i.kind === 'usageLimit');
  const sessionId = item?.sessionId ?? '';
  const found = await withStore(h.world.groveHome, async (store) => {
    const op = (await store.operations.listUnfinished(sessionId)).find((o) => o.notBefore);
    return op?.notBefore ? { sessionId, operationId: op.id, until: op.notBefore } : undefined;
  });
  if (!found) throw new Error('no prompt waits');
  return found;
}

async function inbox() {
  const run = await h.grove(['inbox', '--json']);
  expectExit(run, 0);
  return InboxSchema.parse(JSON.parse(run.stdout));
}

async function showJson(id: string) {
  const run = await h.grove(['show', id, '--json']);
  expectExit(run, 0);
  return ShowSchema.parse(JSON.parse(run.stdout));
}

const queued = (sessionId: string) =>
  withStore(h.world.groveHome, async (store) =>
    (await store.operations.listUnfinished(sessionId)).map((op) => op.payload['prompt']),
  );

describe('grove deny usage:ID', () => {
  it('drops the waiting prompt from another process: it is never sent, not after the reset either, and the item leaves the inbox', async () => {
    const { sessionId, operationId, until: lifts } = await waitingSession(80);
    const short = sessionId.slice(0, 8);
    const sent = promptRequests();
    expect(sent).toBeGreaterThanOrEqual(1);
    const items = await inbox();
    expect(items.map((i) => [i.id, i.kind])).toEqual([[`usage:${sessionId}`, 'usageLimit']]);
    expect(items[0]?.action).toBe(
      `Wait, or drop the prompt, never sent (grove deny usage:${short})`,
    );
    const before = await showJson(short);

    const run = await h.grove(['deny', `usage:${short}`, '--json']);

    expectExit(run, 0);
    expect(UsageDecisionSchema.parse(JSON.parse(run.stdout))).toEqual({
      item: `usage:${sessionId}`,
      sessionId,
      decision: 'dropped',
      agent: 'codex',
      until: new Date(lifts).toISOString(),
      prompt: PROMPT,
      status: before.status,
    });
    expect(await queued(sessionId)).toEqual([]);
    expect(await inbox()).toEqual([]);
    const dropped = await withStore(h.world.groveHome, (store) =>
      store.operations.get(operationId),
    );
    expect(dropped).toMatchObject({ status: 'canceled', payload: { prompt: PROMPT } });
    // The grove run that waited on it ends, its prompt not sent.
    const ended = await waiting?.done;
    expect(ended?.code, ended && show(ended)).toBe(1);
    expect(ended?.stderr).toContain('the turn was stopped by another Grove process');
    // Past the reset the prompt is still never sent (its answer was scripted for it).
    // As long as the limit has left to run (the set-up may have been quick), and then some.
    const past = lifts + 5_000;
    await until('the reset time passed', () => Date.now() > past, past - Date.now() + 30_000);
    expect(promptRequests()).toBe(sent);
    const after = await showJson(short);
    expect(after).toMatchObject({ status: before.status, branch: before.branch });
    expect(after.transcript.map((e) => e.content)).toContain(
      `[Usage limit] The waiting prompt was dropped, never sent: ${PROMPT}.`,
    );
    expect(after.transcript.some((e) => e.content.includes('Sent after the reset.'))).toBe(false);
  }, 180_000);

  it('says in words what it dropped; approve refuses and says when the limit lifts; both refuse once nothing waits', async () => {
    const { sessionId, until: lifts } = await waitingSession(3600);
    const short = sessionId.slice(0, 8);
    const at = new Date(lifts).toISOString();
    const when =
      at.slice(0, 10) === new Date().toISOString().slice(0, 10)
        ? at.slice(11, 16)
        : `${at.slice(0, 10)} ${at.slice(11, 16)}`;

    const approve = await h.grove(['approve', `usage:${short}`, '--json'], { env: { TZ: 'UTC' } });

    expectExit(approve, 2);
    expect(approve.stdout).toBe('');
    expect(approve.stderr).toMatch(
      new RegExp(
        `^grove: a usage limit is the provider's and cannot be approved: the prompt is waiting for codex until ${when} \\(in [0-9hms ]+\\) and runs then by itself; grove deny usage:${short} drops it\\. Nothing was changed\\.\n$`,
      ),
    );
    expect(await queued(sessionId)).toEqual([PROMPT]);
    expect((await inbox()).map((i) => i.id)).toEqual([`usage:${sessionId}`]);

    const unknown = await h.grove(['deny', 'usage:ffffffff']);
    expectExit(unknown, 1);
    expect(unknown.stderr).toBe(
      "grove: nothing waits for a usage limit: no session matches 'ffffffff'.\n",
    );
    const empty = await h.grove(['deny', 'usage:']);
    expectExit(empty, 2);
    expect(empty.stderr).toBe(
      "grove: usage: needs the session's id (usage:ID, as grove inbox shows it)\n",
    );
    expect(await queued(sessionId)).toEqual([PROMPT]);

    const deny = await h.grove(['deny', `usage:${short}`]);

    expectExit(deny, 0);
    const status = (await showJson(short)).status;
    expect(deny.stdout).toBe(
      `usage:${short}: dropped the prompt that waited for codex's usage limit, never sent: ${PROMPT} (the session stays in ${status})\n`,
    );
    expect(await queued(sessionId)).toEqual([]);
    await waiting?.done;

    for (const command of ['deny', 'approve']) {
      const again = await h.grove([command, `usage:${short}`]);
      expectExit(again, 1);
      expect(again.stdout).toBe('');
      expect(again.stderr).toBe(
        `grove: nothing waits for a usage limit in session ${short} (no prompt is queued); nothing was changed.\n`,
      );
    }
  }, 180_000);
});
