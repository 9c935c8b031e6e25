import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/wait.js';
import { parseAllowEntry, type AllowEntry } from '../../src/domain/network.js';
import {
  createNetworkProxy,
  type HoldVerdict,
  type NetworkDenial,
  type NetworkHold,
  type NetworkProxy,
  type Resolver,
} from '../../src/infra/agent/confine/network-proxy.js';

// Grove's filtering proxy checks the addresses a name leads to, not only the
// name. Real servers on this machine, a real proxy listener, real sockets; the
// only stand-in is the resolver (no DNS is reachable here), which answers
// names of the test's own, the way a hostile DNS server would.

const servers: Server[] = [];
const proxies: NetworkProxy[] = [];

afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(() => done(null)))));
});

/** An HTTP server answering `ok <path>`; counts the connections it gets. */
async function httpServer(
  port = 0,
  host = '127.0.0.1',
): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((req, res) => res.end(`ok ${req.url ?? ''}`));
  server.on('connection', () => (connections += 1));
  servers.push(server);
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, done);
  });
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

function entries(...texts: string[]): AllowEntry[] {
  return texts.map((text) => {
    const parsed = parseAllowEntry(text);
    if (typeof parsed === 'string') throw new Error(parsed);
    return parsed;
  });
}

/** A proxy listener on 127.0.0.1 with `allow`, its resolver answering from `names`. */
async function proxyFor(
  allow: AllowEntry[],
  names: Record<string, string[]> = {},
  hold?: NetworkHold,
): Promise<{ port: number; denied: NetworkDenial[]; lookups: string[] }> {
  const lookups: string[] = [];
  const resolve: Resolver = (host) => {
    lookups.push(host);
    const found = names[host];
    return found
      ? Promise.resolve(found)
      : Promise.reject(Object.assign(new Error(host), { code: 'ENOTFOUND' }));
  };
  const proxy = createNetworkProxy({ resolve });
  proxies.push(proxy);
  const denied: NetworkDenial[] = [];
  const listener = await proxy.listen('tcp', allow, (d) => denied.push(d), hold);
  return { port: listener.port ?? 0, denied, lookups };
}

/** Sends `head` to the proxy (then `then` once the tunnel is up) and returns all it answered. */
function viaProxy(proxyPort: number, head: string, then?: string): Promise<string> {
  return new Promise((done) => {
    const socket = connect(proxyPort, '127.0.0.1');
    let text = '';
    let sent = false;
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(head));
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (then && !sent && text.startsWith('HTTP/1.1 200')) {
        sent = true;
        socket.write(then);
      }
    });
    socket.on('error', (error) => done(`error ${error.message}`));
    socket.on('close', () => done(text));
  });
}

const connectTo = (proxyPort: number, authority: string): Promise<string> =>
  viaProxy(
    proxyPort,
    `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`,
    'GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  );

const getVia = (proxyPort: number, url: string): Promise<string> =>
  viaProxy(
    proxyPort,
    `GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nConnection: close\r\n\r\n`,
  );

describe('an allowed name that leads to this machine', () => {
  it('is refused with the reason when it resolves to 127.0.0.1, though a server listens there', async () => {
    const local = await httpServer();
    const proxy = await proxyFor(entries(`evil.test:${local.port}`), {
      'evil.test': ['127.0.0.1'],
    });

    const tunnel = await connectTo(proxy.port, `evil.test:${local.port}`);
    const plain = await getVia(proxy.port, `http://evil.test:${local.port}/x`);

    const line = `network: blocked evil.test:${local.port} (resolves to 127.0.0.1, a loopback address (this machine); allowed only by the entry 127.0.0.1:${local.port} in agents.network.allow)`;
    expect(tunnel).toMatch(/^HTTP\/1\.1 403/);
    expect(tunnel).toContain(line);
    expect(plain).toMatch(/^HTTP\/1\.1 403/);
    expect(plain).toContain(line);
    expect(local.connections()).toBe(0);
    expect(proxy.denied).toEqual([
      {
        host: 'evil.test',
        port: local.port,
        why: line.slice(line.indexOf('(') + 1, -1),
      },
    ]);
  });

  it('is refused when one of its addresses is loopback, in its IPv4-mapped IPv6 form too', async () => {
    const local = await httpServer();
    const proxy = await proxyFor(entries(`evil.test:${local.port}`), {
      'evil.test': ['93.184.215.14', '::ffff:127.0.0.1'],
    });

    const tunnel = await connectTo(proxy.port, `evil.test:${local.port}`);

    expect(tunnel).toMatch(/^HTTP\/1\.1 403/);
    expect(tunnel).toContain('resolves to ::ffff:127.0.0.1, a loopback address');
    expect(local.connections()).toBe(0);
  });

  it("is refused when it resolves to this machine's own network address", async () => {
    const own = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .find((a) => a.family === 'IPv4' && !a.internal)?.address;
    if (!own) return; // no network interface but loopback
    const local = await httpServer(0, '0.0.0.0');
    const proxy = await proxyFor(entries(`evil.test:${local.port}`), { 'evil.test': [own] });

    const tunnel = await connectTo(proxy.port, `evil.test:${local.port}`);

    expect(tunnel).toMatch(/^HTTP\/1\.1 403/);
    expect(local.connections()).toBe(0);
  });

  it('resolves the name once and connects to the address it checked', async () => {
    const model = await httpServer();
    const proxy = await proxyFor(entries(`model.test:${model.port}`, `127.0.0.1:${model.port}`), {
      'model.test': ['127.0.0.1'],
    });

    const tunnel = await connectTo(proxy.port, `model.test:${model.port}`);
    const plain = await getVia(proxy.port, `http://model.test:${model.port}/plain`);

    expect(tunnel).toMatch(/^HTTP\/1\.1 200 Connection Established[\s\S]*ok \/tunnel$/);
    expect(plain).toMatch(/^HTTP\/1\.1 200[\s\S]*ok \/plain$/);
    expect(proxy.lookups).toEqual(['model.test', 'model.test']);
  });
});

describe('an allowed host without a port', () => {
  it('is refused on port 8080 and allowed on 443', async () => {
    const https = await httpServer(443);
    const other = await httpServer(8080);
    const proxy = await proxyFor(entries('web.test', '127.0.0.1:443', '127.0.0.1:8080'), {
      'web.test': ['127.0.0.1'],
    });

    const refused = await connectTo(proxy.port, 'web.test:8080');
    const allowed = await connectTo(proxy.port, 'web.test:443');

    expect(refused).toMatch(/^HTTP\/1\.1 403/);
    expect(refused).toContain('network: blocked web.test:8080 (not in agents.network.allow)');
    expect(other.connections()).toBe(0);
    expect(allowed).toMatch(/^HTTP\/1\.1 200 Connection Established[\s\S]*ok \/tunnel$/);
    expect(https.connections()).toBe(1);
  });
});

describe('a private or loopback address literal', () => {
  it('is refused when the list names it without a port', async () => {
    const proxy = await proxyFor(entries('10.1.2.3', '[::ffff:127.0.0.1]'));

    const privateOne = await connectTo(proxy.port, '10.1.2.3:443');
    const mapped = await connectTo(proxy.port, '[::ffff:127.0.0.1]:443');

    expect(privateOne).toMatch(/^HTTP\/1\.1 403/);
    expect(privateOne).toContain(
      'network: blocked 10.1.2.3:443 (a private network address; allowed only by the entry 10.1.2.3:443 in agents.network.allow)',
    );
    expect(mapped).toMatch(/^HTTP\/1\.1 403/);
    expect(mapped).toContain('a loopback address');
  });

  it('is refused when the list does not name it', async () => {
    const proxy = await proxyFor(entries('web.test'));

    const out = await connectTo(proxy.port, '192.168.1.1:443');

    expect(out).toContain('network: blocked 192.168.1.1:443 (not in agents.network.allow)');
  });

  it('is reached when the list names it with its port, as the model server of a base URL', async () => {
    const model = await httpServer();
    const proxy = await proxyFor(entries(`127.0.0.1:${model.port}`, `localhost:${model.port}`), {
      localhost: ['::1', '127.0.0.1'],
    });

    const tunnel = await connectTo(proxy.port, `127.0.0.1:${model.port}`);
    const plain = await getVia(proxy.port, `http://127.0.0.1:${model.port}/plain`);
    const byName = await connectTo(proxy.port, `localhost:${model.port}`);

    expect(tunnel).toMatch(/^HTTP\/1\.1 200 Connection Established[\s\S]*ok \/tunnel$/);
    expect(plain).toMatch(/^HTTP\/1\.1 200[\s\S]*ok \/plain$/);
    expect(byName).toMatch(/^HTTP\/1\.1 200 Connection Established[\s\S]*ok \/tunnel$/);
    expect(proxy.denied).toEqual([]);
  });
});

/** A hold that records what it was asked and waits for the test to answer. */
function heldRequests(): {
  hold: NetworkHold;
  asked: string[];
  answer: (verdict: HoldVerdict) => void;
} {
  const asked: string[] = [];
  const waiting: ((verdict: HoldVerdict) => void)[] = [];
  return {
    asked,
    hold: (host, port) =>
      new Promise((done) => {
        asked.push(`${host}:${port}`);
        waiting.push(done);
      }),
    answer: (verdict) => waiting.shift()?.(verdict),
  };
}

describe('a name not on the list, with a hold', () => {
  it('waits for the answer before any lookup; approved, it is reached at its checked address', async () => {
    const site = await httpServer();
    const held = heldRequests();
    const proxy = await proxyFor(
      entries(`127.0.0.1:${site.port}`),
      { 'asked.test': ['127.0.0.1'] },
      held.hold,
    );

    const tunnel = connectTo(proxy.port, `asked.test:${site.port}`);
    const plain = getVia(proxy.port, `http://asked.test:${site.port}/plain`);
    await waitUntil('both requests held', () => held.asked.length === 2);
    expect(proxy.lookups).toEqual([]);
    expect(site.connections()).toBe(0);
    held.answer({ kind: 'approved' });
    held.answer({ kind: 'approved' });

    expect(await tunnel).toMatch(/^HTTP\/1\.1 200 Connection Established[\s\S]*ok \/tunnel$/);
    expect(await plain).toMatch(/^HTTP\/1\.1 200[\s\S]*ok \/plain$/);
    expect(held.asked).toEqual([`asked.test:${site.port}`, `asked.test:${site.port}`]);
    expect(proxy.denied).toEqual([]);
  });

  it('denied, the agent reads the usual refusal and nothing is looked up or reached', async () => {
    const site = await httpServer();
    const held = heldRequests();
    const proxy = await proxyFor(
      entries(`127.0.0.1:${site.port}`),
      { 'asked.test': ['127.0.0.1'] },
      held.hold,
    );

    const tunnel = connectTo(proxy.port, `asked.test:${site.port}`);
    await waitUntil('the request held', () => held.asked.length === 1);
    held.answer({ kind: 'denied', why: 'not in agents.network.allow' });

    const out = await tunnel;
    expect(out).toMatch(/^HTTP\/1\.1 403/);
    expect(out).toContain(`network: blocked asked.test:${site.port} (not in agents.network.allow)`);
    expect(proxy.lookups).toEqual([]);
    expect(site.connections()).toBe(0);
  });

  it('approved, a name that resolves to loopback is still refused for its address', async () => {
    const local = await httpServer();
    const held = heldRequests();
    const proxy = await proxyFor(entries('web.test'), { 'evil.test': ['127.0.0.1'] }, held.hold);

    const tunnel = connectTo(proxy.port, `evil.test:${local.port}`);
    await waitUntil('the request held', () => held.asked.length === 1);
    held.answer({ kind: 'approved' });

    const out = await tunnel;
    expect(out).toMatch(/^HTTP\/1\.1 403/);
    expect(out).toContain(`network: blocked evil.test:${local.port} (resolves to 127.0.0.1`);
    expect(local.connections()).toBe(0);
    expect(proxy.denied.map((d) => d.host)).toEqual(['evil.test']);
  });

  it('never holds localhost or an address literal refused for what it is', async () => {
    const held = heldRequests();
    const proxy = await proxyFor(entries('web.test'), {}, held.hold);

    const loop = await connectTo(proxy.port, 'localhost:8080');
    const literal = await connectTo(proxy.port, '127.0.0.1:8080');
    const lan = await connectTo(proxy.port, '192.168.1.1:443');

    expect(held.asked).toEqual([]);
    for (const out of [loop, literal, lan]) expect(out).toMatch(/^HTTP\/1\.1 403/);
    expect(literal).toContain('127.0.0.1:8080 (not in agents.network.allow)');
    expect(lan).toContain('192.168.1.1:443 (not in agents.network.allow)');
  });
});
