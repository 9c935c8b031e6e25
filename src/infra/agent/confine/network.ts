import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  isLoopbackHost,
  MODEL_API_HOSTS,
  normalizeHost,
  type AllowEntry,
} from '../../../domain/network.js';
import { builtinProvider, type ProviderId } from '../../../domain/providers.js';

// What one confined agent may reach, and the relay that carries its traffic
// out of bubblewrap's empty network namespace to Grove's filtering proxy
// (network-proxy.ts). The launcher puts the pieces together.

/** A model server on this machine the agent may reach at its own address. */
export interface LoopbackEndpoint {
  /** As named in the agent's environment or config: 127.0.0.1, localhost, ::1. */
  readonly host: string;
  readonly port: number;
}

/** Environment variables whose value is a model server's URL (ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL, ...). */
const URL_VARIABLE = /(_BASE_URL|_API_URL|_API_BASE|_ENDPOINT)$/i;
/** `base_url = "..."` (Codex providers, openai_base_url, chatgpt_base_url) in TOML or a `-c` flag. */
const CONFIG_URL = /\b[a-z_]*base_url\s*=\s*["']([^"'\s]+)["']/gi;

function endpointOf(text: string): { host: string; port: number } | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (
    url.protocol !== 'http:' &&
    url.protocol !== 'https:' &&
    url.protocol !== 'ws:' &&
    url.protocol !== 'wss:'
  )
    return null;
  const port = url.port
    ? Number(url.port)
    : url.protocol === 'https:' || url.protocol === 'wss:'
      ? 443
      : 80;
  return { host: normalizeHost(url.hostname), port };
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The model-server URLs named in the agent's environment, its arguments and (Codex) its config.toml. */
export function modelServerUrls(
  provider: ProviderId,
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  home: string,
): string[] {
  const urls: string[] = [];
  for (const [name, value] of Object.entries(env))
    if (value && URL_VARIABLE.test(name) && /^[a-z]+:\/\//i.test(value.trim())) urls.push(value);
  const texts = [...args];
  if (provider === 'codex')
    texts.push(readText(join(env['CODEX_HOME'] || join(home, '.codex'), 'config.toml')));
  for (const text of texts)
    for (const match of text.matchAll(CONFIG_URL)) urls.push(match[1] ?? '');
  return urls;
}

/** Cloud hosts named by the environment: Vertex AI regions, Bedrock regions. */
function cloudHosts(env: NodeJS.ProcessEnv): string[] {
  const hosts: string[] = [];
  const regions = [
    env['GOOGLE_CLOUD_LOCATION'],
    env['CLOUD_ML_REGION'],
    env['VERTEX_LOCATION'],
  ].filter((r): r is string => Boolean(r && /^[a-z0-9-]+$/.test(r)));
  if (regions.length > 0) hosts.push('aiplatform.googleapis.com');
  for (const region of regions)
    hosts.push(
      region === 'global' ? 'aiplatform.googleapis.com' : `${region}-aiplatform.googleapis.com`,
    );
  if (env['CLAUDE_CODE_USE_VERTEX'])
    hosts.push('aiplatform.googleapis.com', 'oauth2.googleapis.com');
  const aws = env['AWS_REGION'] || env['AWS_DEFAULT_REGION'];
  if (env['CLAUDE_CODE_USE_BEDROCK'] && aws && /^[a-z0-9-]+$/.test(aws))
    hosts.push(`bedrock-runtime.${aws}.amazonaws.com`, `bedrock.${aws}.amazonaws.com`);
  return hosts;
}

/** The allow list for one agent: its CLI's model API hosts, the servers its config names, and the extra entries. */
export function agentAllowList(
  provider: ProviderId,
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  home: string,
  extra: readonly AllowEntry[],
): { allow: AllowEntry[]; loopback: LoopbackEndpoint[] } {
  // An agent named in agents.json has no known API host: the servers its environment names, and the setting's.
  const builtin = builtinProvider(provider);
  const allow: AllowEntry[] = [
    ...(builtin ? MODEL_API_HOSTS[builtin] : []).map((host) => ({
      host,
      subdomains: false,
      port: null,
    })),
    ...cloudHosts(env).map((host) => ({ host, subdomains: false, port: null })),
  ];
  const named: AllowEntry[] = modelServerUrls(provider, env, args, home)
    .map(endpointOf)
    .filter((e) => e !== null)
    .map((e) => ({ ...e, subdomains: false }));
  const loopback: LoopbackEndpoint[] = [];
  for (const entry of [...named, ...extra]) {
    allow.push(entry);
    const port = entry.port;
    if (port !== null && !entry.subdomains && isLoopbackHost(entry.host))
      if (!loopback.some((l) => l.port === port)) loopback.push({ host: entry.host, port });
  }
  return { allow, loopback };
}

/** Environment variables that send the agent's (and its tools') traffic to the proxy inside the sandbox. */
export function proxyEnv(env: NodeJS.ProcessEnv, proxyPort: number): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of ['ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy']) delete out[name];
  const url = `http://127.0.0.1:${proxyPort}`;
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) out[name] = url;
  out['NO_PROXY'] = 'localhost,127.0.0.1,::1';
  out['no_proxy'] = 'localhost,127.0.0.1,::1';
  return out;
}

/** A port for the proxy inside the sandbox's namespace, clear of the forwarded ones. */
export function relayProxyPort(loopback: readonly LoopbackEndpoint[]): number {
  const taken = new Set(loopback.map((l) => l.port));
  for (let port = 3128; ; port += 1) if (!taken.has(port)) return port;
}

/** What the relay reads from its first argument. */
export interface RelayConfig {
  /** The proxy's unix socket (outside the namespace, bound in). */
  readonly socket: string;
  /** Where the relay listens for the agent's proxy traffic, on 127.0.0.1 inside. */
  readonly proxyPort: number;
  /**
   * Loopback model servers: the relay listens on their port inside and
   * tunnels through the proxy to `target`, or (a server on a host's own
   * loopback, issue 24) pipes to the unix socket `socket` of a bridge there.
   */
  readonly forward: readonly RelayForward[];
}

/** One loopback port the relay listens on inside the sandbox. */
export type RelayForward =
  | { readonly port: number; readonly target: string }
  | { readonly port: number; readonly socket: string };

/**
 * The relay, run first inside bubblewrap's network namespace as
 * `node -e RELAY_SOURCE CONFIG COMMAND ARGS...` (inline, so no file from
 * Grove's install has to be found). It listens on 127.0.0.1:proxyPort and
 * pipes each connection to the proxy's unix socket; on each forwarded
 * loopback port (127.0.0.1 and ::1) it opens a CONNECT tunnel through the
 * proxy. Only once every listener is up does it start the agent, with stdio
 * inherited; it passes signals on and exits as the agent did (same code, or
 * the same signal), so bubblewrap reports the agent's own exit.
 */
export const RELAY_SOURCE = String.raw`'use strict';
const net = require('net');
const { spawn } = require('child_process');
const cfg = JSON.parse(process.argv[1]);
const command = process.argv[2];
const args = process.argv.slice(3);
const servers = [];
const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH'];
function joinBoth(a, b) {
  const end = () => { a.destroy(); b.destroy(); };
  a.on('error', end); b.on('error', end); a.on('close', end); b.on('close', end);
}
function toProxy(client, path) {
  const up = net.connect(path || cfg.socket);
  joinBoth(client, up);
  client.pipe(up); up.pipe(client);
}
function tunnel(client, target) {
  client.pause();
  const up = net.connect(cfg.socket);
  joinBoth(client, up);
  let seen = Buffer.alloc(0);
  up.on('connect', () => up.write('CONNECT ' + target + ' HTTP/1.1\r\nHost: ' + target + '\r\n\r\n'));
  const onData = (chunk) => {
    seen = Buffer.concat([seen, chunk]);
    const end = seen.indexOf('\r\n\r\n');
    if (end < 0) { if (seen.length > 65536) up.destroy(); return; }
    up.off('data', onData);
    if (!/^HTTP\/1\.[01] 200/.test(seen.toString('latin1', 0, end))) { up.destroy(); return; }
    const rest = seen.subarray(end + 4);
    if (rest.length > 0) client.write(rest);
    up.pipe(client); client.pipe(up); client.resume();
  };
  up.on('data', onData);
}
function listen(port, host, handler, required) {
  return new Promise((ok, fail) => {
    const server = net.createServer(handler);
    server.once('error', (error) => (required ? fail(error) : ok()));
    server.listen({ port, host, exclusive: true }, () => { servers.push(server); ok(); });
  });
}
function start() {
  const child = spawn(command, args, { stdio: 'inherit' });
  for (const sig of SIGNALS) process.on(sig, () => { try { child.kill(sig); } catch {} });
  child.on('error', (error) => {
    process.stderr.write(command + ': ' + error.message + '\n');
    process.exit(error.code === 'ENOENT' ? 127 : 126);
  });
  child.on('exit', (code, signal) => {
    for (const server of servers) server.close();
    if (signal && signal !== 'SIGWINCH') {
      for (const sig of SIGNALS) process.removeAllListeners(sig);
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128 + (require('os').constants.signals[signal] || 1)), 200);
    } else process.exit(code === null ? 1 : code);
  });
}
Promise.all([
  listen(cfg.proxyPort, '127.0.0.1', (c) => toProxy(c), true),
  ...cfg.forward.flatMap((f) => {
    const to = (c) => (f.socket ? toProxy(c, f.socket) : tunnel(c, f.target));
    return [listen(f.port, '127.0.0.1', to, true), listen(f.port, '::1', to, false)];
  }),
]).then(start, (error) => {
  process.stderr.write('grove network relay: ' + error.message + '\n');
  process.exit(70);
});
`;

/** The relay's command line around the agent's. */
export function relayCommand(
  config: RelayConfig,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: ['-e', RELAY_SOURCE, JSON.stringify(config), command, ...args],
  };
}

/** `host:port` for a CONNECT line. */
export function authority(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * A bridge on a host (issue 24), run outside its sandbox as
 * `node -e BRIDGE_SOURCE SOCKET PORT`: listens on the unix socket SOCKET
 * (0600, in the run's private folder) and pipes each connection to
 * 127.0.0.1:PORT of the host, so the relay inside reaches a model server on
 * the host's own loopback and nothing else there. It ends when its parent
 * (the sandbox the run's shell became) does.
 */
export const BRIDGE_SOURCE = String.raw`'use strict';
const net = require('net');
const fs = require('fs');
const [path, port] = process.argv.slice(1);
const parent = process.ppid;
try { fs.unlinkSync(path); } catch {}
process.umask(0o177);
const server = net.createServer((client) => {
  const up = net.connect(Number(port), '127.0.0.1');
  const end = () => { client.destroy(); up.destroy(); };
  client.on('error', end); up.on('error', end); client.on('close', end); up.on('close', end);
  client.pipe(up); up.pipe(client);
});
server.listen(path);
setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 1000);
`;
