import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import { Controller } from '../../src/app/controller.js';
import { loadSettings } from '../../src/app/services/projects.js';
import { initialState } from '../../src/app/state.js';
import { openInfra, type Infra } from '../../src/compose.js';
import { createNotifier } from '../../src/infra/notify.js';
import { shellRunner } from '../../src/infra/shell.js';
import { makeRepo, makeWorld, type GroveWorld } from '../helpers/grove-env.js';
import { withStore } from '../helpers/seed.js';
import { waitUntil } from '../helpers/wait.js';

// The webhook's rate limit with a real local HTTP receiver (docs/usage/inbox.md, "Webhook"):
// at most one POST every 2 seconds and 10 a minute; more items wait their turn, oldest first,
// and an item handled before its turn is not sent. The TUI's own wiring runs in this process
// (the Controller with the real notifier, its inbox refresh and the webhook sender, on a real
// SQLite store); a burst of twelve questions is written to the store by another connection,
// as another Grove or a headless command would. The sender's waits are real time, so this
// takes a minute; the bounds below are lower bounds with a little slack for the receiver's
// clock, never upper bounds.

const BURST = 12;
/** Slack for the receiver's arrival times against the sender's own clock (a POST slowed on its way). */
const SLACK_MS = 1000;

let world: GroveWorld;
let infra: Infra;
let controller: Controller;
let receiver: Server;
let url: string;
const arrivals: { at: number; item: string; body: string }[] = [];

beforeEach(async () => {
  arrivals.length = 0;
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      arrivals.push({ at: Date.now(), item: String(req.headers['x-grove-item']), body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/grove-topic`;

  world = makeWorld();
  const repo = makeRepo(world, 'project');
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: world.home,
    GROVE_HOME: world.groveHome,
  };
  infra = openInfra(env);
  await infra.store.settings.setGlobal('notify.webhook', url);
  const project = await infra.store.projects.upsert(repo, 'project', infra.clock.now());
  const app = new App(
    initialState({
      version: 'test',
      columns: 100,
      rows: 30,
      now: infra.clock.now(),
      tab: 'sessions',
      projects: [project],
      activeProjectId: project.id,
      sessions: [],
      settings: await loadSettings(infra.store, project.id),
    }),
    infra.logger,
  );
  app.onWake(() => setImmediate(() => app.drain()));
  controller = new Controller({
    app,
    store: infra.store,
    git: infra.git,
    agents: infra.agents,
    forge: infra.forge,
    shell: shellRunner,
    runtime: infra.runtime,
    notifier: createNotifier(() => {}, env),
    focusedReviews: false,
  });
  app.setIntents(controller);
  controller.start();
});

afterEach(async () => {
  await controller.shutdown();
  await infra.db.close();
  await new Promise((resolve) => receiver.close(resolve));
  world.cleanup();
});

/** Sessions waiting on a question, written by another connection to the store; their ids, oldest first. */
async function askQuestions(count: number): Promise<string[]> {
  return withStore(world.groveHome, async (store) => {
    const [project] = await store.projects.list();
    if (!project) throw new Error('no project');
    const ids: string[] = [];
    for (let n = 1; n <= count; n++) {
      const id = randomUUID();
      const now = Date.now();
      await store.sessions.insert({
        id,
        projectId: project.id,
        title: `Question ${n}`,
        status: 'Draft',
        baseBranch: 'main',
        branch: `grove/${id.slice(0, 8)}`,
        worktreePath: `${world.dir}/wt-${n}`,
        agent: 'claude',
        model: 'sonnet',
        reasoning: 'high',
        createdAt: now,
        prompt: `Question ${n}`,
      });
      await store.sessions.setStatus(id, 'InProgress', now);
      await store.sessions.update(
        id,
        { questions: [{ text: `Which greeting, ${n}?`, options: ['hello', 'hi'] }] },
        now,
      );
      await store.sessions.setStatus(id, 'Question', now);
      ids.push(id);
      // One millisecond apart at least, so the inbox's order (oldest first) is the order asked.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return ids;
  });
}

describe('the webhook under a burst of items', () => {
  it('sends one POST every 2 s at most and 10 a minute, the rest later, oldest first, and skips an item handled before its turn', async () => {
    const ids = await askQuestions(BURST);
    const handled = ids.at(-1) ?? '';

    await waitUntil('three POSTs', () => arrivals.length >= 3, 60_000);
    // The last question is answered elsewhere while it waits its turn.
    await withStore(world.groveHome, async (store) => {
      await store.sessions.update(handled, { questions: [] }, Date.now());
      await store.sessions.setStatus(handled, 'Review', Date.now());
    });
    await waitUntil('eleven POSTs', () => arrivals.length >= BURST - 1, 150_000);
    // Its turn would have come 2 s after the eleventh: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 5_000));

    const expected = ids.slice(0, -1).map((id) => `question:${id}`);
    expect(arrivals.map((a) => a.item)).toEqual(expected);
    expect(arrivals[0]?.body.split('\n').at(-1)).toBe(
      `grove answer ${ids[0]?.slice(0, 8) ?? ''} "<your answers>"`,
    );
    const times = arrivals.map((a) => a.at);
    // Arrival times, not send times: one POST slowed on its way (the first one's connection, a
    // loaded machine) shortens the gap after it, so each gap gets the slack, and the first ten
    // together must take their 2 s each (a limit of one a second would take 9 s).
    for (let i = 1; i < times.length; i++)
      expect(times[i]! - times[i - 1]!, `gap before POST ${i + 1}`).toBeGreaterThanOrEqual(
        2000 - SLACK_MS,
      );
    expect(times[9]! - times[0]!, 'the first ten POSTs').toBeGreaterThanOrEqual(
      9 * 2000 - SLACK_MS,
    );
    // No 60-second window holds more than ten: the eleventh waits for the first to be a minute old.
    for (let i = 10; i < times.length; i++)
      expect(times[i]! - times[i - 10]!, `POST ${i + 1}`).toBeGreaterThanOrEqual(60_000 - SLACK_MS);
  }, 240_000);
});
