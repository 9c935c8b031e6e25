import { ADDRESS_KIND_TEXT, addressKind, canonicalAddress } from './ip-address.js';
import { builtinProvider, type BuiltinProviderId, type ProviderId } from './providers.js';

// Which hosts a confined agent may reach over the network. Pure: the launcher
// (infra/agent/confine/launcher.ts) runs the proxy that applies it.

/** The network setting: `filtered` (the model APIs plus the allow list) or `open` (any host). */
export const NETWORK_MODE_KEY = 'agents.network';
/** Extra hosts confined agents may reach (comma-separated entries). */
export const NETWORK_ALLOW_KEY = 'agents.network.allow';

/** One allowed destination: an exact host or every subdomain of a suffix, on one port or any. */
export interface AllowEntry {
  /** Lower case, without brackets for IPv6 literals. */
  readonly host: string;
  /** `*.example.com`: any subdomain of `host` (not `host` itself). */
  readonly subdomains: boolean;
  /** null: the web's ports, 443 and 80 (DEFAULT_PORTS). */
  readonly port: number | null;
}

/** What the network of a confined agent allows: any host, or the listed ones. */
export type NetworkPolicy =
  { readonly mode: 'open' } | { readonly mode: 'filtered'; readonly extra: readonly AllowEntry[] };

/**
 * The hosts each CLI needs for its model API and its sign-in (checked
 * against the pinned CLIs): Claude Code's API and OAuth token hosts, Codex's
 * API and ChatGPT sign-in hosts, Gemini CLI's API, Code Assist and Google
 * OAuth hosts. Telemetry and update hosts are left out on purpose.
 */
export const MODEL_API_HOSTS: Readonly<Record<BuiltinProviderId, readonly string[]>> = {
  claude: ['api.anthropic.com', 'console.anthropic.com', 'platform.claude.com', 'claude.ai'],
  codex: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'],
  gemini: [
    'generativelanguage.googleapis.com',
    'cloudcode-pa.googleapis.com',
    'oauth2.googleapis.com',
    'www.googleapis.com',
    'accounts.google.com',
  ],
};

/**
 * Usage-statistics hosts the CLIs contact by default (Codex ab.chatgpt.com,
 * Gemini CLI play.googleapis.com, Claude Code Datadog and Statsig). They stay
 * blocked, but a refusal is only logged, not shown in the transcript.
 */
const TELEMETRY: readonly AllowEntry[] = [
  { host: 'ab.chatgpt.com', subdomains: false, port: null },
  { host: 'play.googleapis.com', subdomains: false, port: null },
  { host: 'statsig.anthropic.com', subdomains: false, port: null },
  { host: 'datadoghq.com', subdomains: true, port: null },
  { host: 'sentry.io', subdomains: true, port: null },
];

/** True for a telemetry host whose refusal is not worth a transcript line. */
export function isTelemetryHost(host: string): boolean {
  return isAllowed(TELEMETRY, host, 443);
}

/**
 * Hosts a CLI calls on its own, in the background, for no request of the
 * agent: Codex (0.169) syncs its curated plugin marketplace from GitHub
 * (`git ls-remote` of github.com/openai/plugins, api.github.com, the archive
 * from codeload.github.com) whenever plugins are on, its default. Codex runs
 * the agent's commands in its own sandbox with no network, so a refusal of
 * these hosts for Codex is never the agent's. Claude Code's and Gemini CLI's
 * commands share their proxy, so none of their hosts is listed: a
 * `curl api.github.com` the agent ran still gets its transcript line.
 */
const BACKGROUND: Readonly<Record<BuiltinProviderId, readonly AllowEntry[]>> = {
  claude: [],
  codex: ['github.com', 'api.github.com', 'codeload.github.com'].map((host) => ({
    host,
    subdomains: false,
    port: null,
  })),
  gemini: [],
};

/**
 * True when a refused destination is the CLI's own background call (its
 * usage statistics, Codex's plugin sync): it goes to the log, not the transcript.
 */
export function isBackgroundCall(provider: ProviderId, host: string, port: number): boolean {
  const builtin = builtinProvider(provider);
  return isTelemetryHost(host) || (builtin !== null && isAllowed(BACKGROUND[builtin], host, port));
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;

function validHost(host: string): boolean {
  if (host.includes(':')) return /^[0-9a-f:.]+$/.test(host); // an IPv6 literal
  return host.length <= 253 && host.split('.').every((label) => LABEL.test(label));
}

/** Lower case, IPv6 brackets and a trailing dot removed. */
export function normalizeHost(host: string): string {
  const lower = host.trim().toLowerCase();
  const bare = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

/**
 * One entry as typed: `host`, `*.suffix`, either with `:port`, or `[v6]:port`.
 * A URL is accepted too (its host and explicit port are kept). Returns a
 * message saying what is wrong when it cannot be used.
 */
export function parseAllowEntry(text: string): AllowEntry | string {
  let rest = text.trim();
  const url = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(rest);
  if (url) rest = (url[1] ?? '').replace(/^.*@/, '');
  let port: number | null = null;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
  let host: string;
  if (v6) {
    host = v6[1] ?? '';
    if (v6[2] !== undefined) port = Number(v6[2]);
  } else {
    const withPort = /^([^:]+):(\d+)$/.exec(rest);
    host = withPort ? (withPort[1] ?? '') : rest;
    if (withPort) port = Number(withPort[2]);
  }
  if (port !== null && (port < 1 || port > 65535))
    return `"${text.trim()}": the port must be between 1 and 65535`;
  host = normalizeHost(host);
  const subdomains = host.startsWith('*.');
  if (subdomains) host = host.slice(2);
  if (!host || !validHost(host))
    return `"${text.trim()}" is not a host name (examples: example.com, *.example.com, example.com:8443)`;
  return { host, subdomains, port };
}

/** The entries of the allow-list setting, split on commas and white space. */
function entriesOf(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Why the allow-list setting cannot be stored, or null when every entry is usable. */
export function validateAllowList(value: string): string | null {
  for (const entry of entriesOf(value)) {
    if (entry === '*') continue;
    const parsed = parseAllowEntry(entry);
    if (typeof parsed === 'string') return `Allowed hosts: ${parsed}.`;
  }
  return null;
}

/**
 * The policy from the two settings: `open` when the mode is open or the list
 * holds `*`; otherwise the usable entries of the list.
 */
export function networkPolicy(mode: string | undefined, allow: string | undefined): NetworkPolicy {
  const entries = entriesOf(allow ?? '');
  if (mode === 'open' || entries.includes('*')) return { mode: 'open' };
  const extra: AllowEntry[] = [];
  for (const entry of entries) {
    const parsed = parseAllowEntry(entry);
    if (typeof parsed !== 'string') extra.push(parsed);
  }
  return { mode: 'filtered', extra };
}

/**
 * The ports an entry without a port allows: https and plain http (a client
 * may tunnel either with CONNECT), never every port.
 */
export const DEFAULT_PORTS: readonly number[] = [443, 80];

/** True when `host:port` is on the list. */
export function isAllowed(entries: readonly AllowEntry[], host: string, port: number): boolean {
  const target = normalizeHost(host);
  return entries.some(
    (entry) =>
      (entry.port === null ? DEFAULT_PORTS.includes(port) : entry.port === port) &&
      (entry.subdomains ? target.endsWith(`.${entry.host}`) : target === entry.host),
  );
}

/** True for 127.0.0.0/8, ::1 and localhost: addresses that mean this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = normalizeHost(host);
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Why `host:port`, allowed by name, may not be reached at `address` (the
 * address the proxy resolved it to, or the literal itself); null when it may.
 * An address of this machine (loopback, unspecified, or one of `ownAddresses`,
 * its interfaces' addresses) or of a local network is reached only through an
 * entry naming that address with that port (`localhost:PORT` for loopback), as
 * the model server of a base URL is.
 */
export function addressRefusal(
  entries: readonly AllowEntry[],
  host: string,
  port: number,
  address: string,
  ownAddresses: readonly string[] = [],
): string | null {
  const canonical = canonicalAddress(address);
  const kind = addressKind(address);
  const own = canonical !== null && ownAddresses.some((a) => canonicalAddress(a) === canonical);
  if (kind === null && !own) return null;
  const named = entries.some(
    (entry) =>
      entry.port === port &&
      !entry.subdomains &&
      ((canonical !== null && canonicalAddress(entry.host) === canonical) ||
        (kind === 'loopback' && entry.host === 'localhost')),
  );
  if (named) return null;
  const what = kind === null ? 'an address of this machine' : ADDRESS_KIND_TEXT[kind];
  const literal = canonicalAddress(normalizeHost(host)) === canonical;
  const shown = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
  return `${literal ? '' : `resolves to ${address}, `}${what}; allowed only by the entry ${shown} in ${NETWORK_ALLOW_KEY}`;
}

/** An entry as it reads in the setting. */
export function formatAllowEntry(entry: AllowEntry): string {
  const host = entry.host.includes(':') ? `[${entry.host}]` : entry.host;
  return `${entry.subdomains ? '*.' : ''}${host}${entry.port === null ? '' : `:${entry.port}`}`;
}

/**
 * The allow-list setting with `host:port` added (what "add to the allow list"
 * of a held network request writes): `host` alone for the web's ports (as a
 * person would type it), `host:port` for another; the value unchanged when
 * the list already allows it. The host is checked as an entry typed in the
 * setting is; a message when it is not a usable host name.
 */
export function withAllowEntry(
  value: string,
  host: string,
  port: number,
): string | { why: string } {
  const typed = formatAllowEntry({
    host: normalizeHost(host),
    subdomains: false,
    port: DEFAULT_PORTS.includes(port) ? null : port,
  });
  const parsed = parseAllowEntry(typed);
  if (typeof parsed === 'string') return { why: parsed };
  const current = entriesOf(value);
  if (current.includes('*')) return value;
  const listed: AllowEntry[] = current
    .map(parseAllowEntry)
    .filter((e): e is AllowEntry => typeof e !== 'string');
  if (isAllowed(listed, parsed.host, port)) return value;
  return [...current, typed].join(', ');
}
