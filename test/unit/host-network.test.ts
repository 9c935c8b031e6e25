import { createServer, connect, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { hostCheckResults } from '../../src/cli/host-check.js';
import { openHostNetwork } from '../../src/infra/agent/confine/host-network.js';
import { createNetworkProxy } from '../../src/infra/agent/confine/network-proxy.js';
import { parseProbe } from '../../src/infra/hosts/probe.js';
import { forwardArgs } from '../../src/infra/hosts/remote-forward.js';
import { sandboxedCommand, stateFileWord } from '../../src/infra/hosts/remote-agent.js';
import {
  configPrepareLines,
  parseHostConfig,
  parseHostEnv,
} from '../../src/infra/hosts/remote-network.js';
import { createSsh } from '../../src/infra/hosts/ssh.js';

// The filtered network of an agent on a host (issue 24, item 5): the forward's
// ssh, what Grove takes from the host's environment, and that a host cannot
// open this machine's loopback through it.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("the forward's ssh", () => {
  it('has the transport options but sharing and ClearAllForwardings, and carries one -R', () => {
    const ssh = createSsh({ env: {}, controlDir: '/g/ssh', configFile: '/c' });
    const args = forwardArgs(ssh, 'box', '/r/net/f1', '/l/sock', 'cmd');
    expect(args.join(' ')).not.toMatch(/ClearAllForwardings|ControlPersist|ControlPath=\/g/);
    expect(args).toContain('BatchMode=yes');
    expect(args).toContain('ForwardAgent=no');
    expect(args).toContain('ControlPath=none');
    expect(args.filter((a) => a === '-R')).toHaveLength(1);
    expect(args.slice(-5)).toEqual(['-R', '/r/net/f1:/l/sock', '--', 'box', 'cmd']);
    expect(args.slice(0, 2)).toEqual(['-F', '/c']);
  });
});

describe("the host's environment", () => {
  it('gives only model-server URL variables', () => {
    expect(
      parseHostEnv(
        'ANTHROPIC_BASE_URL=http://127.0.0.1:9\nANTHROPIC_API_KEY=sk-x\nX=1\nmy_api_url=https://a.b/c=d\n',
      ),
    ).toEqual({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', my_api_url: 'https://a.b/c=d' });
  });
});

describe("the CLI's config file on the host", () => {
  it("gives only the marked base_url lines, and puts a server they name on the list (Codex's config.toml)", async () => {
    const printed =
      'GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9\n' +
      'grove-config base_url = "https://models.example:8443/v1"\n' +
      'base_url = "https://unmarked.example"\n';
    expect(parseHostConfig(printed)).toEqual(['base_url = "https://models.example:8443/v1"']);
    expect(parseHostEnv(printed)).toEqual({ GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' });
    const proxy = createNetworkProxy();
    closers.push(() => proxy.close());
    const net = await openHostNetwork(
      proxy,
      { mode: 'filtered', extra: [] },
      { provider: 'codex', args: ['app-server'] },
      {},
      undefined,
      [...parseHostConfig(printed), 'openai_base_url = "http://127.0.0.1:7777"'],
    );
    // A loopback server named there is the host's own: bridged there, never this machine's.
    expect(net?.hostLoopback).toEqual([7777]);
    expect(await connectThrough(net?.socketPath ?? '', 'unmarked.example:443')).toMatch(
      /^HTTP\/1\.1 403/,
    );
  });

  it('is read only when it is a file and not a link, and kept read-only in the sandbox', () => {
    const state = { variable: 'CODEX_HOME', fallback: '.codex', config: 'config.toml' };
    const file = stateFileWord(state, 'config.toml');
    expect(file).toBe('"${CODEX_HOME:-$HOME/.codex}/config.toml"');
    expect(configPrepareLines(file)).toContain(`[ ! -L ${file} ]`);
    expect(() => stateFileWord(state, '../x')).toThrow();
    const place = {
      host: { name: 'box', destination: 'box', root: '.grove-host' },
      root: '/h/.grove-host',
      mirror: '/h/.grove-host/repos/p.git',
      worktree: '/h/.grove-host/worktrees/p/s',
      confined: true,
    } as Parameters<typeof sandboxedCommand>[0];
    const command = sandboxedCommand(place, ['codex', 'app-server'], state);
    expect(command).toContain(`--ro-bind-try ${file} ${file}`);
    // Made (empty) when missing, so the agent cannot create it; never through a link.
    expect(command).toContain(`[ -e ${file} ] || [ -L ${file} ] || : > ${file}`);
    expect(command.indexOf('--ro-bind-try')).toBeGreaterThan(
      command.indexOf('--bind "${CODEX_HOME'),
    );
  });
});

/** Sends `CONNECT target` to the listener's socket; the status line it answers. */
function connectThrough(socket: string, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(socket, () =>
      c.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`),
    );
    let seen = '';
    c.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (seen.includes('\r\n')) {
        c.destroy();
        resolve(seen.split('\r\n')[0] ?? '');
      }
    });
    c.on('error', reject);
  });
}

describe("a host's network listener", () => {
  it("keeps a loopback server the host names off the list: the host cannot open this machine's loopback", async () => {
    const server: Server = createServer((s) => s.end());
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    closers.push(() => new Promise((done) => server.close(() => done())));
    const port = (server.address() as AddressInfo).port;
    const proxy = createNetworkProxy();
    closers.push(() => proxy.close());
    const net = await openHostNetwork(
      proxy,
      { mode: 'filtered', extra: [] },
      { provider: 'claude', args: [] },
      { ANTHROPIC_BASE_URL: `http://127.0.0.1:${String(port)}` },
      undefined,
    );
    expect(net?.hostLoopback).toEqual([port]);
    expect(net?.forward).toEqual([]);
    expect(await connectThrough(net?.socketPath ?? '', `127.0.0.1:${String(port)}`)).toMatch(
      /^HTTP\/1\.1 403/,
    );
    // The person's own entry for that port is theirs: tunnelled to this machine.
    const mine = await openHostNetwork(
      proxy,
      { mode: 'filtered', extra: [{ host: '127.0.0.1', port, subdomains: false }] },
      { provider: 'claude', args: [] },
      {},
      undefined,
    );
    expect(mine?.forward).toEqual([{ port, target: `127.0.0.1:${String(port)}` }]);
    expect(await connectThrough(mine?.socketPath ?? '', `127.0.0.1:${String(port)}`)).toMatch(
      /^HTTP\/1\.1 200/,
    );
    expect(
      await openHostNetwork(
        proxy,
        { mode: 'open' },
        { provider: 'claude', args: [] },
        {},
        undefined,
      ),
    ).toBeNull();
  });
});

describe('grove host check', () => {
  it('warns when node, which runs the network filter there, is missing', () => {
    const facts = parseProbe('user\tme\npath\t/usr/bin\nnode\t\n');
    const host = { name: 'box', destination: 'box', root: '.grove-host' } as Parameters<
      typeof hostCheckResults
    >[0];
    const line = hostCheckResults(host, facts).find((r) => r.check === 'network');
    expect(line?.status).toBe('warn');
    expect(JSON.stringify(line)).toContain('node is not on the PATH');
    const withNode = parseProbe('user\tme\nnode\tv24.1.0\n');
    expect(hostCheckResults(host, withNode).find((r) => r.check === 'network')?.status).toBe('ok');
  });
});
