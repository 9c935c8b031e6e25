import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderId } from '../../src/domain/providers.js';
import type { AgentChannel, TurnEvent, TurnRequest } from '../../src/infra/agent/channel.js';
import { createClaudeChannel } from '../../src/infra/agent/claude.js';
import { createCodexChannel } from '../../src/infra/agent/codex.js';
import { createGeminiChannel } from '../../src/infra/agent/gemini.js';
import { createLauncher, type AgentLauncher } from '../../src/infra/agent/launcher.js';
import { agentEnv } from '../helpers/agent-env.js';
import {
  startFakeModelServer,
  type ApiName,
  type FakeModelServer,
} from '../helpers/fake-model/server.js';
import { realCliPath } from '../helpers/real-clis.js';

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

interface Case {
  readonly provider: ProviderId;
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
  },
);
