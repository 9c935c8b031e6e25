import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import { onlyCliPath } from '../helpers/real-clis.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { replyWith, sameSummary } from '../helpers/fake-model/reply.js';
import { withStore } from '../helpers/seed.js';

// A network approval in the built Grove, in tmux: Claude Code runs `curl` to
// a host not on the allow list (this machine's name, which /etc/hosts gives
// 127.0.0.1; the list names that address with the site's port, so once the
// name is approved the address check lets it through). The request waits in
// the inbox with its host and port; `L` approves it and writes the host to
// agents.network.allow, and the turn goes on with the page fetched.

const reply = replyWith(sameSummary);

/** This machine's name when the system resolver gives it 127.0.0.1. */
const NAME = await lookup(hostname()).then(
  ({ address }) => (address === '127.0.0.1' ? hostname().toLowerCase() : null),
  () => null,
);

const e2e = setUpE2eWorld();
let site: Server;
let port: number;
const hits: string[] = [];

beforeEach(async () => {
  hits.length = 0;
  site = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end('reached\n');
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
  port = (site.address() as AddressInfo).port;
});

afterEach(async () => {
  await new Promise((done) => site.close(done));
});

describe.skipIf(NAME === null ? 'this machine’s name does not resolve to 127.0.0.1' : false)(
  'a network approval in the TUI',
  () => {
    it('holds a host not on the allow list in the inbox until L adds it to the allow list', async () => {
      const repo = makeRepo(e2e.world);
      await withStore(e2e.world.groveHome, async (store) => {
        await store.settings.setGlobal('agents.network.allow', `127.0.0.1:${port}`);
      });
      e2e.server.script('anthropic', [
        { when: 'Write a title for a coding task', text: reply('Fetch a page') },
        {
          when: 'Fetch the page from this machine',
          toolCall: { kind: 'shell', command: `curl -s -m 90 http://${NAME}:${port}/page ; true` },
        },
        { when: 'Fetch the page from this machine', text: reply('Fetched the page.') },
      ]);
      const env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
      env['PATH'] = onlyCliPath(e2e.world.dir, 'claude');
      e2e.term = await startGrove(e2e.world, repo, { env, columns: 140, rows: 34 });
      await e2e.term.waitFor('No sessions yet.');

      await newSession(e2e.term, 'Fetch the page from this machine');
      await e2e.term.waitFor('1 in the inbox', 60_000);
      await e2e.term.keys('C-o');
      const inbox = await e2e.term.waitFor('Inbox: 1 waiting on you');
      expect(inbox).toContain(`Claude Code asks to connect to ${NAME}:${port}`);
      expect(hits).toEqual([]);

      await e2e.term.keys('L');
      await e2e.term.waitFor('Nothing waits on you.', 15_000);
      await e2e.term.keys('Escape');
      await e2e.term.waitFor('Fetched the page.', 60_000);
      const screen = await e2e.term.waitFor('[Approved]');
      expect(screen).toContain('added it to the allowed hosts');

      expect(hits).toEqual(['/page']);
      await withStore(e2e.world.groveHome, async (store) => {
        expect(await store.settings.getGlobal('agents.network.allow')).toBe(
          `127.0.0.1:${port}, ${NAME}:${port}`,
        );
      });
    });
  },
);
