import { execFileSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAllowEntry, type AllowEntry, type NetworkPolicy } from '../../src/domain/network.js';
import type { BuiltinProviderId } from '../../src/domain/providers.js';
import type { AgentChannel, TurnEvent, TurnRequest } from '../../src/infra/agent/channel.js';
import { createClaudeChannel } from '../../src/infra/agent/claude/claude.js';
import { createCodexChannel } from '../../src/infra/agent/codex/codex.js';
import { createGeminiChannel } from '../../src/infra/agent/gemini/gemini.js';
import { createLauncher, type AgentLauncher } from '../../src/infra/agent/confine/launcher.js';
import { agentEnv } from '../helpers/agent-env.js';
import {
  startFakeModelServer,
  type ApiName,
  type FakeModelServer,
} from '../helpers/fake-model/server.js';
import { realCliPath } from '../helpers/real-clis.js';
import { waitUntil } from '../helpers/wait.js';

// The network filter with each real agent CLI. The model server is put at
// this machine's own non-loopback address (a forwarder to the fake model
// server), which bubblewrap's empty network namespace cannot reach: a turn
// completes only if the CLI sends its requests through Grove's proxy
// (HTTP_PROXY), and the proxy lets them through because the base URL names
// that server.

/** This machine's first non-loopback IPv4 address, or null. */
function outsideAddress(): string | null {
  for (const list of Object.values(networkInterfaces()))
    for (const address of list ?? [])
      if (address.family === 'IPv4' && !address.internal) return address.address;
  return null;
}

const ADDRESS = outsideAddress();

/** This machine's name when the system resolver (/etc/hosts) gives it a loopback address. */
const LOOPBACK_NAME = await lookup(hostname()).then(
  ({ address }) => (/^127\./.test(address) ? hostname().toLowerCase() : null),
  () => null,
);

function entries(...texts: string[]): AllowEntry[] {
  return texts.map((text) => {
    const parsed = parseAllowEntry(text);
    if (typeof parsed === 'string') throw new Error(parsed);
    return parsed;
  });
}

interface Case {
  readonly provider: BuiltinProviderId;
  readonly api: ApiName;
  readonly model: string;
  channel(env: Record<string, string>, binary: string, launcher: AgentLauncher): AgentChannel;
}

const CASES: readonly Case[] = [
  {
    provider: 'claude',
    api: 'anthropic',
    model: 'sonnet',
    channel: (env, bin, launcher) =>
      createClaudeChannel({ env, turnTimeoutMs: 60_000, launcher }, bin),
  },
  {
    provider: 'codex',
    api: 'openai',
    model: 'gpt-5.5',
    channel: (env, bin, launcher) =>
      createCodexChannel({ env, turnTimeoutMs: 60_000, launcher }, bin),
  },
  {
    provider: 'gemini',
    api: 'gemini',
    model: 'gemini-test',
    channel: (env, bin, launcher) =>
      createGeminiChannel({ env, turnTimeoutMs: 60_000, launcher }, bin),
  },
];

const REPLY = JSON.stringify({ answer: 'done', questions: [], summary: null });

let server: FakeModelServer;
let forwarder: Server;
let outsideUrl: string;
let other: HttpServer;
let otherUrl: string;
let dir: string;
let worktree: string;
let home: string;
let channel: AgentChannel | null = null;
let launcher: AgentLauncher;

/** Listens on `address`, port 0, and pipes each connection to `port` on 127.0.0.1. */
async function forward(address: string, port: number): Promise<Server> {
  const made = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((done) => made.listen(0, address, done));
  return made;
}

beforeEach(async () => {
  if (ADDRESS === null) return;
  server = await startFakeModelServer();
  forwarder = await forward(ADDRESS, Number(new URL(server.url).port));
  outsideUrl = `http://${ADDRESS}:${(forwarder.address() as AddressInfo).port}`;
  other = createHttpServer((_req, res) => res.end('reached'));
  await new Promise<void>((done) => other.listen(0, ADDRESS, done));
  otherUrl = `http://${ADDRESS}:${(other.address() as AddressInfo).port}`;
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-agents-network-')));
  worktree = join(dir, 'wt');
  home = join(dir, 'home');
  mkdirSync(worktree);
  mkdirSync(home);
  execFileSync('git', ['init', '-q', worktree]);
  server.setWorkdir(worktree);
  launcher = createLauncher({ runDir: null, allowUnconfined: () => Promise.resolve(false) });
});

afterEach(async () => {
  if (ADDRESS === null) return;
  await channel?.shutdown();
  channel = null;
  await launcher.stopAll(0);
  forwarder.close();
  other.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

function request(c: Case): TurnRequest {
  return {
    sessionId: 'session-1',
    cwd: worktree,
    mainCheckout: worktree,
    prompt: 'Say done',
    kind: 'session_start',
    model: c.model,
    reasoning: c.provider === 'gemini' ? 'default' : 'high',
    permissionMode: 'auto_edit',
    providerConversationId: null,
    outputSchema: null,
  };
}

/** agentEnv, with every base URL at the outside address. */
function outsideEnv(): Record<string, string> {
  return agentEnv({ ...server, url: outsideUrl }, home);
}

describe.skipIf(ADDRESS === null ? 'no non-loopback address on this machine' : false).each(CASES)(
  '$provider, with the network filtered',
  (c) => {
    const binary = realCliPath(c.provider);

    it('talks to a model server off loopback through Grove’s proxy', async () => {
      server.script(c.api, [{ text: REPLY }]);
      channel = c.channel(outsideEnv(), binary, launcher);

      const result = await channel.runTurn(request(c), () => {}, new AbortController().signal);

      expect(result.message).toContain('done');
      expect(server.modelRequests(c.api).length).toBeGreaterThanOrEqual(1);
    });

    // Codex's own sandbox cuts its commands off the network before they reach Grove's proxy.
    it.skipIf(c.provider === 'codex')(
      'shows a blocked request of a command the agent ran as a line in the transcript',
      async () => {
        server.script(c.api, [
          {
            toolCall: { kind: 'shell', command: `curl -s -m 10 ${new URL(otherUrl).host} ; true` },
          },
          { text: REPLY },
        ]);
        channel = c.channel(outsideEnv(), binary, launcher);
        const notices: string[] = [];
        const onEvent = (event: TurnEvent): void => {
          if (event.type === 'notice') notices.push(event.text);
        };

        await channel.runTurn(request(c), onEvent, new AbortController().signal);

        expect(notices).toContain(
          `network: blocked ${new URL(otherUrl).host} (not in agents.network.allow)`,
        );
      },
    );

    // The name is this machine's own, which /etc/hosts gives a loopback address.
    it.skipIf(c.provider === 'codex' || LOOPBACK_NAME === null)(
      'cannot reach a local port through an allowed name that resolves to loopback',
      async () => {
        const hits: string[] = [];
        const local = createHttpServer((req, res) => {
          hits.push(req.url ?? '');
          res.end('reached');
        });
        await new Promise<void>((done) => local.listen(0, '127.0.0.1', done));
        const target = `${LOOPBACK_NAME ?? ''}:${(local.address() as AddressInfo).port}`;
        const filtered = createLauncher({
          runDir: null,
          allowUnconfined: () => Promise.resolve(false),
          network: () =>
            Promise.resolve({ mode: 'filtered', extra: entries(target) } satisfies NetworkPolicy),
        });
        server.script(c.api, [
          { toolCall: { kind: 'shell', command: `curl -s -m 10 ${target} ; true` } },
          { text: REPLY },
        ]);
        channel = c.channel(outsideEnv(), binary, filtered);
        const notices: string[] = [];
        const onEvent = (event: TurnEvent): void => {
          if (event.type === 'notice') notices.push(event.text);
        };

        try {
          await channel.runTurn(request(c), onEvent, new AbortController().signal);
        } finally {
          await channel.shutdown();
          channel = null;
          await filtered.stopAll(0);
          local.close();
        }

        expect(hits).toEqual([]);
        expect(notices).toContainEqual(
          expect.stringMatching(
            new RegExp(`^network: blocked ${target} \\(resolves to 127\\..*a loopback address`),
          ),
        );
      },
    );
  },
);

describe.skipIf(ADDRESS === null ? 'no non-loopback address on this machine' : false)(
  "a CLI's own background calls",
  () => {
    it("keeps Codex's plugin sync to GitHub out of the transcript, in the log", async () => {
      const env = outsideEnv();
      // Plugins on, as Codex ships them (agentEnv turns them off to keep the tests quiet).
      const config = join(env['CODEX_HOME'] ?? '', 'config.toml');
      writeFileSync(config, readFileSync(config, 'utf8').replace('plugins = false\n', ''));
      const logged: string[] = [];
      const logging = createLauncher({
        runDir: null,
        allowUnconfined: () => Promise.resolve(false),
        logger: { log: (_level, message) => logged.push(message) },
      });
      // The reply waits until the network filter has refused the sync Codex starts with its
      // process (at most 15 s, then the assertions below say what is missing), so that the
      // sync happens during the turn.
      const blocked = /^codex agent: network: blocked (api\.)?github\.com:443/;
      const refused = waitUntil(
        'the plugin sync to be refused',
        () => logged.some((line) => blocked.test(line)),
        15_000,
      ).catch(() => {});
      server.script('openai', [{ until: refused, then: { text: REPLY } }]);
      channel = createCodexChannel(
        { env, turnTimeoutMs: 60_000, launcher: logging },
        realCliPath('codex'),
      );
      const notices: string[] = [];

      try {
        await channel.runTurn(
          request(CASES[1] as Case),
          (e) => e.type === 'notice' && notices.push(e.text),
          new AbortController().signal,
        );
      } finally {
        await channel.shutdown();
        channel = null;
        await logging.stopAll(0);
      }

      expect(logged).toContainEqual(expect.stringMatching(blocked));
      expect(notices.filter((n) => n.includes('github.com'))).toEqual([]);
    });

    it('still shows a host a Claude Code command asked for, even one Codex calls on its own', async () => {
      server.script('anthropic', [
        { toolCall: { kind: 'shell', command: 'curl -s -m 10 https://api.github.com/zen ; true' } },
        { text: REPLY },
      ]);
      channel = (CASES[0] as Case).channel(outsideEnv(), realCliPath('claude'), launcher);
      const notices: string[] = [];

      await channel.runTurn(
        request(CASES[0] as Case),
        (e) => e.type === 'notice' && notices.push(e.text),
        new AbortController().signal,
      );

      expect(notices).toContain(
        'network: blocked api.github.com:443 (not in agents.network.allow)',
      );
    });
  },
);
