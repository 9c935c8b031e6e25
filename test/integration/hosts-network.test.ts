import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { NETWORK_ALLOW_KEY } from '../../src/domain/network.js';
import { gate } from '../helpers/fake-model/server.js';
import { startClaudeHost, type ClaudeHost } from '../helpers/claude-host.js';
import { killIfAlive, liveProcesses } from '../helpers/processes.js';
import { withStore } from '../helpers/seed.js';
import { sshdIt, sshdProblem } from '../helpers/sshd.js';
import { expectExit, harness, reply, show, until, type Harness } from './headless-harness.js';
import { ResultSchema } from './headless-schema.js';

// The network of an agent on a host is filtered as here (issue 24, item 5):
// the built binary, the real Claude Code run on the test host (this machine,
// as its second unix user, through the private sshd) against the fake model
// server, its traffic through bubblewrap's empty network namespace on the
// host, the relay, the reverse forward and Grove's proxy here. Two sites on
// 127.0.0.1: one on agents.network.allow, one not.

const it = sshdIt();
const ROOT = `.grove-test-network-${process.pid}`;
let h: Harness;
let host: ClaudeHost | undefined;
let env: Record<string, string>;
let listed: Server;
let unlisted: Server;
const hits: string[] = [];

function site(name: string): Server {
  return createServer((req, res) => {
    hits.push(`${name}${req.url ?? ''}`);
    res.end(`${name}-reached\n`);
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

let listedPort = 0;
let unlistedPort = 0;

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  listed = site('listed');
  unlisted = site('unlisted');
  listedPort = await listen(listed);
  unlistedPort = await listen(unlisted);
  await withStore(h.world.groveHome, (store) =>
    store.settings.setGlobal(NETWORK_ALLOW_KEY, `127.0.0.1:${String(listedPort)}`),
  );
  host = await startClaudeHost(h.server.url);
  env = { GROVE_SSH_CONFIG: host.sshd.config };
  expectExit(await h.grove(['host', 'add', 'build', host.sshd.alias, '--root', ROOT], { env }), 0);
}, 60_000);

afterAll(async () => {
  if (!host) return;
  await host.close(ROOT);
  await h.close();
  await new Promise((done) => listed.close(done));
  await new Promise((done) => unlisted.close(done));
});

/** What the model was told (the tool results of the turn), as one string. */
function toldModel(task: string): string {
  return h.server
    .modelRequests('anthropic')
    .map((r) => JSON.stringify(r.body))
    .filter((body) => body.includes(task) && body.includes('tool_result'))
    .map((body) => body.slice(body.indexOf('tool_result')))
    .join('\n');
}

/** The reverse forwards Grove's ssh keeps for a turn on the host (their own connection: ControlPath=none). */
function forwards(): { pid: number; cmdline: string }[] {
  return liveProcesses().filter(
    (p) =>
      p.cmdline.startsWith('ssh') &&
      p.cmdline.includes('ControlPath=none') &&
      p.cmdline.includes(' -R '),
  );
}

describe('the network of an agent on a host', () => {
  it('goes through the proxy here: a listed site is reached, an unlisted one is refused, nothing goes around the proxy; the model still answers', async () => {
    // --noproxy '': through the proxy for 127.0.0.1 too (the sandbox's NO_PROXY names it).
    const curl = `curl -s -m 20 --noproxy ''`;
    const command = [
      `${curl} http://127.0.0.1:${String(listedPort)}/via-proxy`,
      `${curl} http://127.0.0.1:${String(unlistedPort)}/refused`,
      // Around the proxy: only `lo` in the sandbox, where nothing listens on that port.
      `curl -s -m 20 --noproxy '*' http://127.0.0.1:${String(unlistedPort)}/direct || echo direct-failed`,
    ].join('; echo; ');
    h.utilities();
    h.server.script('anthropic', [
      { when: 'fetch the sites', toolCall: { kind: 'shell', command } },
      { when: 'fetch the sites', text: reply('Fetched.') },
    ]);
    const run = await h.grove(['run', '--host', 'build', '--output', 'json', 'fetch the sites'], {
      env,
    });
    expectExit(run, 0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).answer).toBe('Fetched.');
    const told = toldModel('fetch the sites');
    expect(told, show(run)).toContain('listed-reached');
    expect(told).toContain(`network: blocked 127.0.0.1:${String(unlistedPort)}`);
    expect(told).toContain('direct-failed');
    expect(hits).toEqual(['listed/via-proxy']);
    // The turn's forward is gone with it.
    await until('the forward is closed', () => forwards().length === 0, 10_000);
  }, 180_000);

  it('makes the forward again when the link drops mid-turn, and the agent retrying gets through', async () => {
    hits.length = 0;
    const dropped = gate();
    h.utilities();
    const fetch = (path: string): string =>
      `curl -s -m 10 --noproxy '' --retry 20 --retry-all-errors --retry-delay 1 http://127.0.0.1:${String(listedPort)}/${path}`;
    h.server.script('anthropic', [
      { when: 'across a drop', toolCall: { kind: 'shell', command: fetch('before') } },
      {
        when: 'across a drop',
        until: dropped.opened,
        then: { toolCall: { kind: 'shell', command: fetch('after') } },
      },
      { when: 'across a drop', text: reply('Both fetched.') },
    ]);
    const running = h.start(['run', '--host', 'build', '--output', 'json', 'across a drop'], {
      env,
    });
    await until('the first fetch is through', () => hits.includes('listed/before'), 120_000);
    const [first] = forwards();
    expect(first).toBeDefined();
    killIfAlive(first?.pid ?? 0);
    await until(
      'the forward is made again',
      () => forwards().some((p) => p.pid !== first?.pid),
      30_000,
    );
    dropped.open();
    const run = await running.done;
    expectExit(run, 0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).answer).toBe('Both fetched.');
    expect(hits).toEqual(['listed/before', 'listed/after']);
  }, 180_000);
});

describe('a host whose sshd does not forward unix sockets', () => {
  it('refuses the turn in words, and runs it with the network open only where agents may run unconfined', async () => {
    const refusing = await startClaudeHost(h.server.url, {}, ['AllowStreamLocalForwarding no']);
    const root = `${ROOT}-refusing`;
    const envHere = { GROVE_SSH_CONFIG: refusing.sshd.config };
    try {
      expectExit(
        await h.grove(['host', 'add', 'strict', refusing.sshd.alias, '--root', root], {
          env: envHere,
        }),
        0,
      );
      h.utilities();
      h.server.script('anthropic', [
        { when: 'on the strict host', toolCall: { kind: 'shell', command: 'echo ran-there' } },
        { when: 'on the strict host', text: reply('Ran.') },
      ]);
      const refused = await h.grove(
        ['run', '--host', 'strict', '--output', 'json', 'on the strict host'],
        { env: envHere },
      );
      expect(refused.stdout + refused.stderr).toContain('does not forward a unix socket');
      expect(toldModel('on the strict host')).not.toContain('ran-there');

      expectExit(
        await h.grove(
          ['host', 'add', 'strict', refusing.sshd.alias, '--root', root, '--allow-unconfined'],
          { env: envHere },
        ),
        0,
      );
      h.utilities();
      h.server.script('anthropic', [
        { when: 'open this time', toolCall: { kind: 'shell', command: 'echo ran-there' } },
        { when: 'open this time', text: reply('Ran.') },
      ]);
      const open = await h.grove(
        ['run', '--host', 'strict', '--output', 'json', 'open this time'],
        { env: envHere },
      );
      expectExit(open, 0);
      expect(toldModel('open this time')).toContain('ran-there');
      const sessionId = ResultSchema.parse(JSON.parse(open.stdout)).sessionId;
      const shown = await h.grove(['show', sessionId, '--json'], { env: envHere });
      expect(shown.stdout).toContain('is not filtered');
    } finally {
      await refusing.close(root);
    }
  }, 240_000);
});
