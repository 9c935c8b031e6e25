import { lookup } from 'node:dns/promises';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type * as Http from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import { connect, isIP, type LookupFunction, type Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import {
  addressRefusal,
  isAllowed,
  isLoopbackHost,
  NETWORK_ALLOW_KEY,
  normalizeHost,
  type AllowEntry,
} from '../../../domain/network.js';
import { pidAlive } from './leftovers.js';

/**
 * node:http, loaded when the first proxy starts. A static ESM import of it
 * makes Node build its ESM facade, which reads every export, and its
 * WebSocket and MessageEvent getters load the whole fetch stack (memory at
 * start-up for nothing; figures in docs/performance.md).
 */
function http(): typeof Http {
  return process.getBuiltinModule('node:http');
}

// The filtering proxy between a confined agent and the network. Each launch
// gets its own listener with its own allow list: a unix socket in a private
// (0700) folder that the sandbox's relay connects to (bubblewrap), or a port
// on 127.0.0.1 (Seatbelt). It speaks the two forms of HTTP proxying the CLIs
// use: CONNECT host:port (https, and the relay's tunnels to loopback model
// servers) and absolute-URI plain HTTP. Anything else gets 403 and a reason.
//
// A destination is checked twice: its name and port against the allow list,
// then every address the name resolves to (one lookup, by the proxy itself).
// An address of this machine or of a local network is refused unless an entry
// names that address with that port, so an allowed name that resolves (or is
// rebound) to 127.0.0.1 opens nothing. The connection then goes to exactly the
// addresses checked: the socket's lookup is pinned to them, never asked again.
//
// A name not on the list may be held for the person instead of refused (the
// listener's `hold`, the approval desk behind it): the request waits, and
// only once approved is the name resolved (no lookup of a name nobody
// approved, so a name cannot carry data out through DNS) and its addresses
// checked as above. What is refused for its address alone (an address
// literal of this machine or a local network, localhost) is never held.

/** A destination the proxy refused. */
export interface NetworkDenial {
  readonly host: string;
  readonly port: number;
  /** Why, as `deniedMessage` shows it. */
  readonly why: string;
}

/**
 * What holding a request not on the allow list came to: approved (its
 * addresses are still checked), denied (`why` for the agent's message; the
 * holder has told the person), or not held (refused as usual).
 */
export type HoldVerdict =
  | { readonly kind: 'approved' }
  | { readonly kind: 'denied'; readonly why: string }
  | { readonly kind: 'notHeld' };

/** Holds a request to `host:port` for the person; resolves when it is decided. */
export type NetworkHold = (host: string, port: number) => Promise<HoldVerdict>;

/** One launch's listener. */
export interface ProxyListener {
  /** The unix socket (kind 'unix'). */
  readonly socketPath: string | null;
  /** The folder holding it, bound into the sandbox. */
  readonly socketDir: string | null;
  /** The port on 127.0.0.1 (kind 'tcp'). */
  readonly port: number | null;
  /** Destinations refused so far, in order (each once). */
  denied(): readonly NetworkDenial[];
  /** Stops listening and ends its connections. */
  close(): Promise<void>;
}

export interface NetworkProxy {
  /** Starts a listener for one agent; with `hold`, a name not on the list is held instead of refused. */
  listen(
    kind: 'unix' | 'tcp',
    allow: readonly AllowEntry[],
    onDenied: (denial: NetworkDenial) => void,
    hold?: NetworkHold,
  ): Promise<ProxyListener>;
  /** Closes every listener and removes the socket folder. */
  close(): Promise<void>;
}

export const NOT_LISTED = `not in ${NETWORK_ALLOW_KEY}`;

/** The reason given to the agent (and shown to the person) for a refused destination. */
export function deniedMessage(host: string, port: number, why = NOT_LISTED): string {
  const shown = host.includes(':') ? `[${host}]` : host;
  return `network: blocked ${shown}:${port} (${why})`;
}

/** Every address a host name resolves to, in the resolver's order. */
export type Resolver = (host: string) => Promise<readonly string[]>;

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS). */
const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true })).map((entry) => entry.address);

/** The addresses of this machine's network interfaces. */
function ownAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
}

/** A lookup that answers the addresses already checked, so the socket connects to nothing else. */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const all = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_host, options, callback) => {
    const first = all[0];
    if (options.all) callback(null, all);
    else if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
  };
}

/** What the check of a destination found. */
type Checked =
  | { readonly kind: 'ok'; readonly addresses: readonly string[] }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'unreachable'; readonly reason: string };

export interface NetworkProxyOptions {
  /** Resolves host names (default: the system's resolver). */
  readonly resolve?: Resolver;
}

/** `host:port` of a CONNECT target, `[v6]:port` included; null when malformed. */
export function parseAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority.trim());
  if (!match) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return null;
  return { host: normalizeHost(match[1] ?? match[2] ?? ''), port };
}

function refuse(socket: Duplex, status: string, reason: string, blocked = true): void {
  const body = `${reason}\n`;
  const mark = blocked ? 'X-Grove-Network: blocked\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${mark}\r\n${body}`,
  );
}

const HOP_BY_HOP = new Set([
  'proxy-connection',
  'proxy-authorization',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const FOLDER_PREFIX = 'grove-net-';

/**
 * Removes the socket folders of Grove processes that are gone (killed before
 * they could close their proxy); the number removed. Run by the start-up sweep.
 */
export function sweepProxyFolders(root = tmpdir()): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return 0;
  }
  for (const name of names) {
    const pid = /^grove-net-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || pidAlive(Number(pid))) continue;
    try {
      rmSync(join(root, name), { recursive: true, force: true });
      removed += 1;
    } catch {
      // Another user's folder, or gone meanwhile.
    }
  }
  return removed;
}

/** The proxy (no listener yet; `listen` makes the private socket folder on first use). */
export function createNetworkProxy(options: NetworkProxyOptions = {}): NetworkProxy {
  const resolveName = options.resolve ?? systemResolver;
  let dir: string | null = null;
  let count = 0;
  /** Listeners being opened: the folder must stay for them. */
  let opening = 0;
  const listeners = new Set<ProxyListener>();

  const listen = (
    kind: 'unix' | 'tcp',
    allow: readonly AllowEntry[],
    onDenied: (denial: NetworkDenial) => void,
    hold?: NetworkHold,
  ): Promise<ProxyListener> => {
    const sockets = new Set<Duplex>();
    const denied: NetworkDenial[] = [];
    const deny = (host: string, port: number, why = NOT_LISTED): string => {
      if (!denied.some((d) => d.host === host && d.port === port)) {
        denied.push({ host, port, why });
        onDenied({ host, port, why });
      }
      return deniedMessage(host, port, why);
    };
    /** A refusal recorded without telling onDenied again (the holder told the person). */
    const refusedAfterHold = (host: string, port: number, why: string): Checked => {
      if (!denied.some((d) => d.host === host && d.port === port)) denied.push({ host, port, why });
      return { kind: 'refused', reason: deniedMessage(host, port, why) };
    };
    /** The name and port against the list (or the person's answer), then each address the name resolves to (once). */
    const check = async (host: string, port: number): Promise<Checked> => {
      if (!isAllowed(allow, host, port)) {
        // An address literal refused for what it is, or localhost: refused at once (as without a hold), never held.
        const literal =
          isIP(host) && addressRefusal(allow, host, port, host, ownAddresses()) !== null;
        if (!hold || literal || isLoopbackHost(host))
          return { kind: 'refused', reason: deny(host, port) };
        const verdict = await hold(host, port).catch((): HoldVerdict => ({
          kind: 'denied',
          why: NOT_LISTED,
        }));
        if (verdict.kind === 'notHeld') return { kind: 'refused', reason: deny(host, port) };
        if (verdict.kind === 'denied') return refusedAfterHold(host, port, verdict.why);
      }
      let addresses: readonly string[];
      try {
        addresses = isIP(host) ? [host] : await resolveName(host);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        return { kind: 'unreachable', reason: `cannot resolve ${host}: ${code}` };
      }
      if (addresses.length === 0)
        return { kind: 'unreachable', reason: `cannot resolve ${host}: no address` };
      const own = ownAddresses();
      for (const address of addresses) {
        const why = addressRefusal(allow, host, port, address, own);
        if (why !== null) return { kind: 'refused', reason: deny(host, port, why) };
      }
      return { kind: 'ok', addresses };
    };
    const track = (socket: Duplex): void => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    };

    const server: Server = http().createServer((req, res) => {
      // Plain HTTP: the request line carries the absolute URL.
      let url: URL;
      try {
        url = new URL(req.url ?? '');
      } catch {
        res.writeHead(400, { 'Content-Type': 'text/plain' }).end('not a proxy request\n');
        return;
      }
      if (url.protocol !== 'http:') {
        res.writeHead(400, { 'Content-Type': 'text/plain' }).end('only http:// URLs\n');
        return;
      }
      const host = normalizeHost(url.hostname);
      const port = url.port ? Number(url.port) : 80;
      void check(host, port).then(
        (checked) => forward(req, res, url, checked),
        () => res.destroy(),
      );
    });
    /** Sends a plain HTTP request on to the checked addresses (or answers why not). */
    const forward = (
      req: IncomingMessage,
      res: Http.ServerResponse,
      url: URL,
      checked: Checked,
    ): void => {
      if (res.destroyed) return;
      const host = normalizeHost(url.hostname);
      const port = url.port ? Number(url.port) : 80;
      if (checked.kind !== 'ok') {
        const refused = checked.kind === 'refused';
        res
          .writeHead(refused ? 403 : 502, {
            'Content-Type': 'text/plain; charset=utf-8',
            ...(refused ? { 'X-Grove-Network': 'blocked' } : {}),
          })
          .end(`${checked.reason}\n`);
        return;
      }
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      const upstream = http().request(
        {
          host,
          port,
          method: req.method,
          path: `${url.pathname}${url.search}`,
          headers,
          // A fresh connection to the checked addresses: no pooled socket, no second lookup.
          agent: false,
          lookup: pinnedLookup(checked.addresses),
        },
        (answer: IncomingMessage) => {
          const out: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(answer.headers))
            if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
          answer.pipe(res);
        },
      );
      upstream.on('error', (error) => {
        if (!res.headersSent)
          res
            .writeHead(502, { 'Content-Type': 'text/plain' })
            .end(`cannot reach ${host}:${port}: ${error.message}\n`);
        else res.destroy();
      });
      req.pipe(upstream);
    };

    server.on('connection', track);
    server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
      track(client);
      const target = parseAuthority(req.url ?? '');
      if (!target) {
        refuse(client, '400 Bad Request', `not a host:port: ${req.url ?? ''}`);
        return;
      }
      void check(target.host, target.port).then(
        (checked) => tunnel(client, head, target, checked),
        () => client.destroy(),
      );
    });
    /** Opens the tunnel to the checked addresses (or answers why not). */
    const tunnel = (
      client: Duplex,
      head: Buffer,
      target: { host: string; port: number },
      checked: Checked,
    ): void => {
      if (client.destroyed) return;
      if (checked.kind !== 'ok') {
        const refused = checked.kind === 'refused';
        refuse(client, refused ? '403 Forbidden' : '502 Bad Gateway', checked.reason, refused);
        return;
      }
      const upstream: Socket = connect({
        host: target.host,
        port: target.port,
        lookup: pinnedLookup(checked.addresses),
      });
      track(upstream);
      upstream.once('connect', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.once('error', (error) => {
        if (client.writable)
          refuse(
            client,
            '502 Bad Gateway',
            `cannot reach ${target.host}:${target.port}: ${error.message}`,
          );
      });
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    };
    server.on('upgrade', (_req: IncomingMessage, client: Duplex) => {
      track(client);
      refuse(client, '501 Not Implemented', 'upgrades through the proxy are not supported');
    });
    server.on('clientError', (_error, socket: Duplex) => socket.destroy());

    return new Promise((resolve, reject) => {
      let socketPath: string | null = null;
      let socketDir: string | null = null;
      if (kind === 'unix') {
        socketDir = dir ??= mkdtempSync(join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
        count += 1;
        socketPath = join(socketDir, `${process.pid}-${count}.sock`);
      }
      opening += 1;
      server.once('error', (error) => {
        opening -= 1;
        reject(error);
      });
      const ready = (): void => {
        opening -= 1;
        server.removeAllListeners('error');
        // A listening server that fails stops listening; its agent then reaches nothing.
        server.on('error', () => server.close());
        const address = server.address();
        const listener: ProxyListener = {
          socketPath,
          socketDir,
          port: typeof address === 'object' && address !== null ? address.port : null,
          denied: () => [...denied],
          close: () =>
            new Promise<void>((done) => {
              listeners.delete(listener);
              for (const socket of sockets) socket.destroy();
              const finish = (): void => {
                // The last listener gone: the folder goes too (made again by the next listen).
                if (listeners.size === 0 && opening === 0 && dir) {
                  rmSync(dir, { recursive: true, force: true });
                  dir = null;
                }
                done();
              };
              if (!server.listening) finish();
              else server.close(finish);
            }),
        };
        listeners.add(listener);
        resolve(listener);
      };
      if (socketPath) server.listen(socketPath, ready);
      else server.listen(0, '127.0.0.1', ready);
    });
  };

  return {
    listen,
    async close() {
      await Promise.all([...listeners].map((l) => l.close()));
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = null;
    },
  };
}
