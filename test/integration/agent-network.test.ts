import { execFileSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NetworkPolicy } from '../../src/domain/network.js';
import { createLauncher, type AgentLauncher } from '../../src/infra/agent/confine/launcher.js';
import { sweepProxyFolders } from '../../src/infra/agent/confine/network-proxy.js';
import { probeSandbox } from '../../src/infra/sandbox-probe.js';
import { waitUntil } from '../helpers/wait.js';

// The network of a confined agent, on the real thing: bubblewrap with its own
// network namespace, the relay inside it and Grove's filtering proxy outside.
// The "agent" is a small node script that tries each kind of destination and
// prints what happened as JSON.

const probe = await probeSandbox(process.env, AbortSignal.timeout(10_000));
const skip = probe.ok ? false : `bubblewrap cannot confine here: ${probe.reason}`;

/** Tries every destination it is given and prints the outcomes. */
const AGENT = `
import net from 'node:net';
const [allowed, blocked, extra] = process.argv.slice(2).map(Number);
const proxy = process.env.HTTPS_PROXY ? new URL(process.env.HTTPS_PROXY) : null;
const out = { noProxy: process.env.NO_PROXY };
const reach = (port) => fetch('http://127.0.0.1:' + port + '/direct').then((r) => r.text(), (e) => 'error ' + (e.cause?.code ?? e.message));
const dial = (port) => new Promise((done) => {
  const s = net.connect(port, '127.0.0.1');
  s.on('connect', () => { s.destroy(); done('connected'); });
  s.on('error', (e) => done(e.code));
});
const viaProxy = (head, then) => new Promise((done) => {
  if (!proxy) return done('no proxy');
  const s = net.connect(Number(proxy.port), proxy.hostname);
  let text = '';
  let sent = false;
  s.on('connect', () => s.write(head));
  s.on('data', (d) => {
    text += d;
    if (then && !sent && text.startsWith('HTTP/1.1 200')) { sent = true; s.write(then); }
  });
  s.on('error', (e) => done('error ' + e.code));
  s.on('close', () => done(text));
});
out.allowed = await reach(allowed);
out.blocked = await dial(blocked);
out.deniedConnect = await viaProxy('CONNECT example.com:443 HTTP/1.1\\r\\nHost: example.com:443\\r\\n\\r\\n');
out.deniedPlain = await viaProxy('GET http://example.org/x HTTP/1.1\\r\\nHost: example.org\\r\\nConnection: close\\r\\n\\r\\n');
out.tunnel = await viaProxy('CONNECT 127.0.0.1:' + extra + ' HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n', 'GET /tunnel HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n');
out.plain = await viaProxy('GET http://127.0.0.1:' + extra + '/plain HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n');
const named = process.argv[5] !== '--wait' ? process.argv[5] : undefined;
if (named) out.named = await viaProxy('CONNECT ' + named + ' HTTP/1.1\\r\\nHost: ' + named + '\\r\\n\\r\\n', 'GET /named HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n');
process.stdout.write(JSON.stringify(out) + '\\n');
if (process.argv.includes('--wait')) setInterval(() => {}, 1000);
`;

let dir: string;
let worktree: string;
let home: string;
let script: string;
const servers: Server[] = [];
const launchers: AgentLauncher[] = [];

async function httpServer(): Promise<number> {
  const server = createServer((req, res) => res.end(`ok ${req.url ?? ''}`));
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-network-')));
  worktree = join(dir, 'wt');
  home = join(dir, 'home');
  mkdirSync(home);
  mkdirSync(worktree);
  execFileSync('git', ['init', '-q', worktree]);
  script = join(dir, 'agent.mjs');
  writeFileSync(script, AGENT);
});

afterEach(async () => {
  for (const launcher of launchers.splice(0)) await launcher.stopAll(0);
  for (const server of servers.splice(0)) server.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

function launcher(network?: NetworkPolicy): AgentLauncher {
  const made = createLauncher({
    runDir: null,
    allowUnconfined: () => Promise.resolve(false),
    ...(network ? { network: () => Promise.resolve(network) } : {}),
  });
  launchers.push(made);
  return made;
}

interface Outcome {
  readonly noProxy: string;
  readonly allowed: string;
  readonly blocked: string;
  readonly deniedConnect: string;
  readonly deniedPlain: string;
  readonly tunnel: string;
  readonly plain: string;
  readonly named?: string;
}

/** Runs the agent script under `launcher` and returns what it printed. */
async function runAgent(
  using: AgentLauncher,
  ports: { allowed: number; blocked: number; extra: number },
  denied: string[] = [],
  named?: string,
): Promise<Outcome> {
  const proc = await using.launch({
    provider: 'claude',
    command: process.execPath,
    args: [
      script,
      String(ports.allowed),
      String(ports.blocked),
      String(ports.extra),
      ...(named ? [named] : []),
    ],
    cwd: worktree,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${ports.allowed}`,
    },
    onNetworkDenied: (line) => denied.push(line),
  });
  proc.child.stdin.end();
  let stdout = '';
  proc.child.stdout.setEncoding('utf8');
  proc.child.stdout.on('data', (chunk: string) => (stdout += chunk));
  const exit = await proc.exited;
  expect(exit.code, proc.stderrTail()).toBe(0);
  return JSON.parse(stdout) as Outcome;
}

async function threePorts(): Promise<{ allowed: number; blocked: number; extra: number }> {
  return { allowed: await httpServer(), blocked: await httpServer(), extra: await httpServer() };
}

/** The proxy socket folders of this process. */
function proxyFolders(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith(`grove-net-${process.pid}-`));
}

const filteredWith = (port: number): NetworkPolicy => ({
  mode: 'filtered',
  extra: [{ host: '127.0.0.1', subdomains: false, port }],
});

/** This machine's name when the system resolver (/etc/hosts) gives a loopback address for it. */
const loopbackName = await lookup(hostname()).then(
  ({ address }) => (/^127\./.test(address) || address === '::1' ? hostname().toLowerCase() : null),
  () => null,
);

describe.skipIf(skip)('the network of a confined agent', () => {
  it('reaches the model server named by its base URL at its own loopback address', async () => {
    const ports = await threePorts();

    const out = await runAgent(launcher(), ports);

    expect(out.allowed).toBe('ok /direct');
  });

  it('cannot reach a loopback port that is not allowed', async () => {
    const ports = await threePorts();

    const out = await runAgent(launcher(), ports);

    expect(out.blocked).toBe('ECONNREFUSED');
  });

  it('gets 403 with the reason from the proxy for a host not on the allow list', async () => {
    const ports = await threePorts();
    const denied: string[] = [];

    const out = await runAgent(launcher(), ports, denied);

    expect(out.deniedConnect).toMatch(/^HTTP\/1\.1 403/);
    expect(out.deniedConnect).toContain(
      'network: blocked example.com:443 (not in agents.network.allow)',
    );
    expect(out.deniedPlain).toMatch(/^HTTP\/1\.1 403/);
    expect(denied).toEqual([
      'network: blocked example.com:443 (not in agents.network.allow)',
      'network: blocked example.org:80 (not in agents.network.allow)',
      `network: blocked 127.0.0.1:${ports.extra} (not in agents.network.allow)`,
    ]);
  });

  it('goes through the proxy to a host the setting allows, by CONNECT and by plain HTTP', async () => {
    const ports = await threePorts();

    const out = await runAgent(launcher(filteredWith(ports.extra)), ports);

    expect(out.tunnel).toMatch(/^HTTP\/1\.1 200 Connection Established[\s\S]*ok \/tunnel$/);
    expect(out.plain).toMatch(/^HTTP\/1\.1 200[\s\S]*ok \/plain$/);
  });

  it.skipIf(!loopbackName)(
    'is refused a listed name that the system resolves to this machine, where a server listens',
    async () => {
      const ports = await threePorts();
      const denied: string[] = [];
      const name = loopbackName ?? '';
      const policy: NetworkPolicy = {
        mode: 'filtered',
        extra: [{ host: name, subdomains: false, port: ports.extra }],
      };

      const out = await runAgent(launcher(policy), ports, denied, `${name}:${ports.extra}`);

      expect(out.named).toMatch(/^HTTP\/1\.1 403/);
      expect(out.named).toContain(`network: blocked ${name}:${ports.extra} (resolves to `);
      expect(denied).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^network: blocked ${name}:${ports.extra} \\(resolves to .*a loopback address`,
          ),
        ),
      );
    },
  );

  it('is refused every port but 443 and 80 of a host listed without a port', async () => {
    const ports = await threePorts();
    const denied: string[] = [];
    const policy: NetworkPolicy = {
      mode: 'filtered',
      extra: [{ host: 'localhost', subdomains: false, port: null }],
    };

    const out = await runAgent(launcher(policy), ports, denied, `localhost:${ports.extra}`);

    expect(out.named).toMatch(/^HTTP\/1\.1 403/);
    expect(denied).toContain(
      `network: blocked localhost:${ports.extra} (not in agents.network.allow)`,
    );
  });

  it('is told by NO_PROXY to reach loopback addresses directly', async () => {
    const ports = await threePorts();

    const out = await runAgent(launcher(), ports);

    expect(out.noProxy).toBe('localhost,127.0.0.1,::1');
  });

  it('reaches any loopback port when the network is open', async () => {
    const ports = await threePorts();

    const out = await runAgent(launcher({ mode: 'open' }), ports);

    expect(out.blocked).toBe('connected');
  });

  it('removes the proxy socket folder once its last agent has exited', async () => {
    const ports = await threePorts();
    await runAgent(launcher(), ports);

    await waitUntil('the proxy folder is removed', () => proxyFolders().length === 0);

    expect(proxyFolders()).toEqual([]);
  });

  it("leaves no proxy socket behind once the launcher's agents are stopped", async () => {
    const using = launcher();
    const ports = await threePorts();
    const proc = await using.launch({
      provider: 'claude',
      command: process.execPath,
      args: [script, String(ports.allowed), String(ports.blocked), String(ports.extra), '--wait'],
      cwd: worktree,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home },
    });
    proc.child.stdin.end();
    proc.child.stdout.resume();
    const sockets = (): string[] =>
      readdirSync(tmpdir())
        .filter((name) => name.startsWith('grove-net-'))
        .flatMap((name) => {
          const folder = join(tmpdir(), name);
          try {
            return readdirSync(folder)
              .filter((file) => file.startsWith(`${process.pid}-`))
              .map((file) => join(folder, file));
          } catch {
            return []; // another Grove's folder, gone meanwhile
          }
        });
    expect(sockets()).toHaveLength(1);

    await using.stopAll(0);

    expect(sockets()).toEqual([]);
  });
});

describe('the start-up sweep', () => {
  it('removes the proxy socket folders of Grove processes that are gone, not of live ones', () => {
    const root = join(dir, 'tmp');
    const gone = execFileSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }).trim();
    mkdirSync(join(root, `grove-net-${gone}-abc`), { recursive: true });
    mkdirSync(join(root, `grove-net-${process.pid}-def`));
    mkdirSync(join(root, `grove-net-${process.ppid}-ghi`));

    sweepProxyFolders(root);

    expect(readdirSync(root).sort()).toEqual(
      [`grove-net-${process.pid}-def`, `grove-net-${process.ppid}-ghi`].sort(),
    );
  });
});
