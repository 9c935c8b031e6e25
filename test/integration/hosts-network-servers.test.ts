import { rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { lookup } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { z } from 'zod';
import { NETWORK_ALLOW_KEY } from '../../src/domain/network.js';
import { gate } from '../helpers/fake-model/server.js';
import type { ApiName } from '../helpers/fake-model/server.js';
import { killIfAlive, liveProcesses } from '../helpers/processes.js';
import { hostCodexHome, hostGeminiHome, hostHomeDir } from '../helpers/host-homes.js';
import { realCliPath } from '../helpers/real-clis.js';
import { withStore } from '../helpers/seed.js';
import { sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';
import { expectExit, harness, reply, show, until, type Harness } from './headless-harness.js';
import { InboxSchema, ResultSchema } from './headless-schema.js';

// The network of Codex's app-server and Gemini CLI's ACP process on a host is
// filtered as here (issue 24, item 5), for as long as the long-lived process
// runs: the built binary, the real pinned CLIs run on the test host (this
// machine, as its second unix user, through the private sshd) against the
// fake model server (named on the host's own loopback: by Codex's
// config.toml there, by Gemini CLI's environment, so reached through the
// bridge), the agent's commands in bubblewrap's empty network namespace, the
// relay, the reverse forward and Grove's proxy here. Two sites on 127.0.0.1:
// one on agents.network.allow, one not.

const it = sshdIt();
const ROOT = `.grove-test-netsrv-${process.pid}`;
let h: Harness;
let sshd: TestHost | undefined;
let env: Record<string, string>;
let listed: Server;
let unlisted: Server;
let listedPort = 0;
let unlistedPort = 0;
const hits: string[] = [];
/** Folders made in the host user's home. */
const made: string[] = [];

/** This machine's name when the system resolver gives it 127.0.0.1 (a name, so it is held, not refused). */
const NAME = await lookup(hostname()).then(
  ({ address }) => (address === '127.0.0.1' ? hostname().toLowerCase() : null),
  () => null,
);

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
  // Codex's home on the host: its config.toml names the fake model server on the host's loopback.
  const codexHome = hostCodexHome(`.codex-netsrv-${process.pid}`, h.server.url);
  const geminiHome = hostGeminiHome(`.gemini-netsrv-${process.pid}`);
  const bin = hostHomeDir(`.netsrv-bin-${process.pid}`);
  symlinkSync(realCliPath('codex'), join(bin, 'codex'));
  symlinkSync(realCliPath('gemini'), join(bin, 'gemini'));
  made.push(codexHome, geminiHome, bin);
  sshd = await startSshd({
    path: [bin],
    env: {
      CODEX_HOME: codexHome,
      FAKE_OPENAI_KEY: 'sk-host-own',
      GEMINI_CLI_HOME: geminiHome,
      GOOGLE_GEMINI_BASE_URL: h.server.url,
      GEMINI_API_KEY: 'host-own-key',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    },
  });
  env = { GROVE_SSH_CONFIG: sshd.config };
  expectExit(await h.grove(['host', 'add', 'build', sshd.alias, '--root', ROOT], { env }), 0);
}, 60_000);

afterAll(async () => {
  if (!sshd) return;
  await sshd.up();
  // A test that failed mid-turn leaves its run going on the host (runs are detached): its
  // process group ended, so no later test file of this host user sees it in `ps`.
  sshd.ssh(
    `for f in ${ROOT}/runs/*/pid; do [ -f "$f" ] && kill -KILL -- "-$(cat "$f")" 2>/dev/null; done; true`,
  );
  sshd.ssh(`rm -rf ${ROOT}`);
  await sshd.stop();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  await h.close();
  await new Promise((done) => listed.close(done));
  await new Promise((done) => unlisted.close(done));
});

/** Everything the model was sent for `task` (the commands' output comes back in the requests). */
function toldModel(api: ApiName, task: string): string {
  return h.server
    .modelRequests(api)
    .map((r) => JSON.stringify(r.body))
    .filter((body) => body.includes(task))
    .join('\n');
}

/** The reverse forwards Grove's ssh keeps for a run on the host (their own connection: ControlPath=none). */
function forwards(): { pid: number; cmdline: string }[] {
  return liveProcesses().filter(
    (p) =>
      p.cmdline.startsWith('ssh') &&
      p.cmdline.includes('ControlPath=none') &&
      p.cmdline.includes(' -R '),
  );
}

type InboxItem = z.infer<typeof InboxSchema>[number];

async function inbox(): Promise<InboxItem[]> {
  const shown = await h.grove(['inbox', '--json'], { env });
  return InboxSchema.parse(JSON.parse(shown.stdout || '[]'));
}

/** Approves, once, every request held in the inbox until `over` says the run ended; returns what was held. */
async function approveAll(over: () => boolean): Promise<InboxItem[]> {
  const seen: InboxItem[] = [];
  await until(
    'the run is over',
    async () => {
      for (const item of await inbox()) {
        if (item.kind !== 'approval' || !item.approvalId) continue;
        if (seen.some((s) => s.approvalId === item.approvalId)) continue;
        seen.push(item);
        await h.grove(['approve', item.approvalId.slice(0, 8)], { env });
      }
      return over();
    },
    240_000,
  );
  return seen;
}

/** One shell command that fetches the listed site, the unlisted one, and the unlisted one around the proxy. */
function fetchAll(tag: string): string {
  // --noproxy '': through the proxy for 127.0.0.1 too (the sandbox's NO_PROXY names it). No
  // scheme: `http://` reads as an absolute path to the approval rules, which refuse the command.
  // The words echoed are split by quotes, so only the output (not the command) has them whole.
  const curl = `curl -s -m 20 --noproxy ''`;
  return [
    `${curl} 127.0.0.1:${String(listedPort)}/${tag}-via-proxy`,
    `${curl} 127.0.0.1:${String(unlistedPort)}/${tag}-refused`,
    // Around the proxy: only `lo` in the sandbox, where nothing listens on that port.
    `curl -s -m 20 --noproxy '*' 127.0.0.1:${String(unlistedPort)}/${tag}-direct || echo ${tag}-direct-fail''ed`,
  ].join('; echo; ');
}

/** A fetch of the listed site that retries while the forward is made again. */
function retried(path: string): string {
  return `curl -s -m 10 --noproxy '' --retry 20 --retry-all-errors --retry-delay 1 127.0.0.1:${String(listedPort)}/${path}`;
}

/** Starts `task` on the host with `agent`. */
function runOnHost(agent: string, task: string): ReturnType<typeof h.start> {
  return h.start(['run', '--host', 'build', '--agent', agent, '--output', 'json', task], { env });
}

describe('Codex on a host', () => {
  it('goes through the proxy here: a listed site is reached, an unlisted one is refused, nothing goes around the proxy; the model still answers', async () => {
    hits.length = 0;
    const task = 'codex fetches the sites';
    h.utilities();
    // Codex runs its commands with no network in its own sandbox: this one asks to run outside it.
    // It also tries to name a server of its own in its config.toml, which the next run's allow list reads.
    // (Its slashes as printf escapes: a `//` reads as a path outside the worktree to the approval rules.)
    const rewrite = `; echo; printf 'openai_base_url = "https:\\057\\057elsewhere.example"\\n' >> "$CODEX_HOME/config.toml" || echo config-read-on''ly`;
    h.server.script('openai', [
      {
        when: task,
        toolCall: { kind: 'shell', command: fetchAll('codex') + rewrite, escalate: true },
      },
      { when: task, text: reply('Fetched.') },
    ]);
    const running = runOnHost('codex', task);
    let ended = false;
    void running.done.finally(() => (ended = true));
    const held = await approveAll(() => ended);
    const run = await running.done;
    expectExit(run, 0);
    expect(held, show(run)).toHaveLength(1);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).answer).toBe('Fetched.');
    const told = toldModel('openai', task);
    expect(told, show(run)).toContain('listed-reached');
    expect(told).toContain(`network: blocked 127.0.0.1:${String(unlistedPort)}`);
    expect(told).toContain('codex-direct-failed');
    expect(told).not.toContain('unlisted-reached');
    expect(hits).toEqual(['listed/codex-via-proxy']);
    expect(told).toContain('config-read-only');
    expect(sshd?.ssh(`cat "$CODEX_HOME/config.toml"`)).not.toContain('elsewhere');
    // The run's forward is gone with its app-server.
    await until('the forward is closed', () => forwards().length === 0, 30_000);
  }, 300_000);

  it('makes the forward again when the link drops while the app-server runs, and its retried fetch gets through', async () => {
    hits.length = 0;
    const task = 'codex across a drop';
    const dropped = gate();
    h.utilities();
    h.server.script('openai', [
      { when: task, toolCall: { kind: 'shell', command: retried('codex-before'), escalate: true } },
      {
        when: task,
        until: dropped.opened,
        then: { toolCall: { kind: 'shell', command: retried('codex-after'), escalate: true } },
      },
      { when: task, text: reply('Both fetched.') },
    ]);
    const running = runOnHost('codex', task);
    let ended = false;
    void running.done.finally(() => (ended = true));
    const approving = approveAll(() => ended);
    await until('the first fetch is through', () => hits.includes('listed/codex-before'), 180_000);
    const [first] = forwards();
    expect(first).toBeDefined();
    killIfAlive(first?.pid ?? 0);
    await until(
      'the forward is made again',
      () => forwards().some((p) => p.pid !== first?.pid),
      30_000,
    );
    dropped.open();
    await approving;
    const run = await running.done;
    expectExit(run, 0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).answer, show(run)).toBe('Both fetched.');
    expect(hits).toEqual(['listed/codex-before', 'listed/codex-after']);
  }, 300_000);
});

describe('Gemini CLI on a host', () => {
  it('goes through the proxy here: a listed site is reached, an unlisted one is refused, a name off the list is held for the person, nothing goes around the proxy', async () => {
    hits.length = 0;
    const task = 'gemini fetches the sites';
    const held = NAME
      ? `; echo; curl -s -m 120 --noproxy '' ${NAME}:${String(listedPort)}/gemini-held`
      : '';
    h.utilities();
    h.server.script('gemini', [
      { when: task, toolCall: { kind: 'shell', command: fetchAll('gemini') + held } },
      { when: task, text: reply('Fetched.') },
    ]);
    const running = runOnHost('gemini', task);
    let ended = false;
    void running.done.finally(() => (ended = true));
    const approved = await approveAll(() => ended);
    const run = await running.done;
    expectExit(run, 0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).answer).toBe('Fetched.');
    const told = toldModel('gemini', task);
    expect(told, show(run)).toContain('listed-reached');
    expect(told).toContain(`network: blocked 127.0.0.1:${String(unlistedPort)}`);
    expect(told).toContain('gemini-direct-failed');
    expect(told).not.toContain('unlisted-reached');
    if (NAME) {
      // The name was held in the inbox as for Gemini CLI here, and once approved went through.
      expect(approved.map((i) => i.text).join('\n')).toContain(`${NAME}:${String(listedPort)}`);
      expect(hits).toEqual(['listed/gemini-via-proxy', 'listed/gemini-held']);
    } else {
      expect(hits).toEqual(['listed/gemini-via-proxy']);
    }
    await until('the forward is closed', () => forwards().length === 0, 30_000);
  }, 300_000);

  it('makes the forward again when the link drops while the ACP process runs, and its retried fetch gets through', async () => {
    hits.length = 0;
    const task = 'gemini across a drop';
    const dropped = gate();
    h.utilities();
    h.server.script('gemini', [
      { when: task, toolCall: { kind: 'shell', command: retried('gemini-before') } },
      {
        when: task,
        until: dropped.opened,
        then: { toolCall: { kind: 'shell', command: retried('gemini-after') } },
      },
      { when: task, text: reply('Both fetched.') },
    ]);
    const running = runOnHost('gemini', task);
    await until('the first fetch is through', () => hits.includes('listed/gemini-before'), 180_000);
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
    expect(ResultSchema.parse(JSON.parse(run.stdout)).answer, show(run)).toBe('Both fetched.');
    expect(hits).toEqual(['listed/gemini-before', 'listed/gemini-after']);
  }, 300_000);
});
