// The filtered network of a confined agent on a host (issue 24, item 5). As
// here, bubblewrap gives the agent a network namespace of its own (only
// `lo`), and the relay of network.ts, run first inside it by the host's
// `node`, carries its proxy traffic over a unix socket: `<run>/net/sock`,
// which a reverse forward (remote-forward.ts) carries to a listener of
// Grove's filtering proxy on this machine, with the session's allow list and
// the inbox's network approvals. A model server the host user's environment
// names on the host's own loopback is reached there, through a bridge (also
// `node`, outside the sandbox) on `<run>/net/lo-PORT`. The host's other unix
// sockets are hidden, as here.
import type { HostPlace } from '../../domain/host.js';
import type { HostNetwork, HostNetworkOpener } from '../agent/confine/host-network.js';
import { BRIDGE_SOURCE, RELAY_SOURCE, type RelayConfig } from '../agent/confine/network.js';
import { shellQuote } from './quote.js';
import { ForwardRefused, startForward, type HostForward } from './remote-forward.js';
import { runScript } from './remote-script.js';
import type { Ssh } from './ssh.js';

/** What the sandbox on the host needs: the run's `net` folder and the relay's config. */
export interface SandboxNetwork {
  readonly netDir: string;
  readonly relay: RelayConfig;
  /** Ports of the host's loopback bridged into the folder (lo-PORT). */
  readonly bridges: readonly number[];
}

/** A turn's network on a host, as the starter holds it. */
export interface RunNetwork {
  readonly sandbox: SandboxNetwork;
  readonly forward: HostForward;
  close(): void;
}

/** Names of variables whose value is a model server's URL (network.ts's URL_VARIABLE). */
const URL_NAMES = '^[A-Za-z_][A-Za-z0-9_]*(_BASE_URL|_API_URL|_API_BASE|_ENDPOINT)=';

/** Lines for a host script: makes `$1/net` (private) and prints the model-server variables of the host user. */
export const NET_PREPARE_LINES = `mkdir -p -- "$1/net" && chmod 700 -- "$1/net" && { env | grep -iE '${URL_NAMES}' || true; }`;

/** The NAME=value lines NET_PREPARE_LINES printed, as an environment. */
export function parseHostEnv(text: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && new RegExp(URL_NAMES, 'i').test(line))
      env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}

/** What starts each `base_url` line of the CLI's config file in a prepare script's output. */
const CONFIG_MARK = 'grove-config ';

/**
 * Lines for a host script: prints the `base_url` lines of the CLI's config
 * file `file` (a shell word, expanded there), each after CONFIG_MARK, when it
 * is a file and not a link (the sandbox keeps that file read-only; a link
 * may lead to one the agent writes). Only those lines, at most 64 kB read.
 */
export function configPrepareLines(file: string): string {
  return `{ if [ -f ${file} ] && [ ! -L ${file} ]; then head -c 65536 -- ${file} | grep -iE 'base_url' | sed 's/^/${CONFIG_MARK}/'; fi; true; }`;
}

/** The config lines configPrepareLines printed. */
export function parseHostConfig(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(CONFIG_MARK))
    .map((line) => line.slice(CONFIG_MARK.length));
}

/** The transcript's line when a host's sshd cannot forward the filter's socket and the agent runs with the host's network. */
export function openNetworkNotice(name: string, why: string): string {
  return `The network of the agent on ${name} is not filtered: ${why}. Agents on ${name} may run unconfined (grove host add --allow-unconfined), so it runs with the host's network open.`;
}

/** Unix sockets of the host that run programs as someone else: hidden in the sandbox (host-exposure.ts's list). */
const SYSTEM_SOCKETS = [
  '/run/docker.sock',
  '/run/podman/podman.sock',
  '/run/containerd/containerd.sock',
  '/run/crio/crio.sock',
  '/run/dbus/system_bus_socket',
  '/run/snapd.socket',
  '/run/snapd-snap.socket',
  '/run/systemd/private',
  '/run/libvirt/libvirt-sock',
];

/**
 * Shell lines run before `exec bwrap` (each ending in `&&`): the host's
 * node found, the bridges started and waited for, and `$grove_hide` set to
 * the options that hide the host user's and the system's sockets.
 */
export function networkPrelude(net: SandboxNetwork): string[] {
  const q = shellQuote;
  const sockets = SYSTEM_SOCKETS.join(' ');
  return [
    `{ grove_node=$(command -v node) && grove_node=$(readlink -f -- "$grove_node") ||`,
    `{ echo ${q("grove: node is not on the PATH of the host user, and Grove's network filter on the host runs in it (install Node.js there, 18 or later)")} >&2; exit 127; }; } &&`,
    'grove_node_dir=$(dirname -- "$(dirname -- "$grove_node")") &&',
    // The folders where other programs keep their sockets get an empty one; system sockets /dev/null.
    `{ grove_hide=; for d in /var/tmp "/run/user/$(id -u)" /run/screen; do if [ -d "$d" ]; then grove_hide="$grove_hide --tmpfs $d"; fi; done;`,
    `for s in ${sockets}; do if [ -S "$s" ]; then grove_hide="$grove_hide --ro-bind /dev/null $s"; fi; done; } &&`,
    ...net.bridges.map((port) => {
      const socket = q(`${net.netDir}/lo-${String(port)}`);
      return [
        `{ "$grove_node" -e ${q(BRIDGE_SOURCE)} ${socket} ${String(port)} < /dev/null > /dev/null 2>&1 &`,
        `grove_i=0; while [ ! -S ${socket} ] && [ "$grove_i" -lt 400 ]; do sleep 0.05; grove_i=$((grove_i + 1)); done; } &&`,
      ].join(' ');
    }),
  ];
}

/** bubblewrap's options for the filtered network (after the tmpfs over Grove's root folder). */
export function networkOptions(net: SandboxNetwork): string[] {
  const q = shellQuote;
  const url = q(`http://127.0.0.1:${String(net.relay.proxyPort)}`);
  const local = q('localhost,127.0.0.1,::1');
  return [
    '--unshare-net $grove_hide',
    `--ro-bind ${q(net.netDir)} ${q(net.netDir)}`,
    '--ro-bind "$grove_node_dir" "$grove_node_dir"',
    ...['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].map(
      (v) => `--setenv ${v} ${url}`,
    ),
    `--setenv NO_PROXY ${local} --setenv no_proxy ${local}`,
    '--unsetenv ALL_PROXY --unsetenv all_proxy',
  ];
}

/** The agent's words inside the sandbox: the relay first, which starts the agent once it listens. */
export function relayWords(net: SandboxNetwork): string[] {
  return ['"$grove_node"', '-e', shellQuote(RELAY_SOURCE), shellQuote(JSON.stringify(net.relay))];
}

/**
 * Opens the turn's listener here and the forward to it, from what
 * NET_PREPARE_LINES printed. Null: the network is open (agents.network),
 * or the host's sshd does not forward unix sockets and the person allowed
 * agents on that host to run unconfined (`onOpen` says so). Otherwise a
 * refusal is a HostError in words.
 */
export async function connectNetwork(
  ssh: Ssh,
  place: HostPlace,
  runDir: string,
  open: HostNetworkOpener,
  printed: string,
  allowOpen: () => Promise<boolean>,
  onOpen: (why: string) => void,
): Promise<RunNetwork | null> {
  const net: HostNetwork | null = await open(parseHostEnv(printed), parseHostConfig(printed));
  if (!net) return null;
  const netDir = `${runDir}/net`;
  const forward = startForward(ssh, place.host, netDir, net.socketPath);
  try {
    await forward.ready;
  } catch (error) {
    forward.close();
    await net.close();
    if (error instanceof ForwardRefused && (await allowOpen())) {
      onOpen(error.message);
      return null;
    }
    throw error;
  }
  const sandbox: SandboxNetwork = {
    netDir,
    bridges: net.hostLoopback,
    relay: {
      socket: `${netDir}/sock`,
      proxyPort: net.proxyPort,
      forward: [
        ...net.forward,
        ...net.hostLoopback.map((port) => ({ port, socket: `${netDir}/lo-${String(port)}` })),
      ],
    },
  };
  return {
    sandbox,
    forward,
    close() {
      forward.close();
      void net.close();
    },
  };
}

/** Reads the host's model-server variables and makes `<run>/net` for a run that already exists (a re-attach). */
export function prepareNetwork(ssh: Ssh, place: HostPlace, runDir: string): Promise<string> {
  return runScript(
    ssh,
    place.host,
    `preparing the network of the agent on ${place.host.name}`,
    `umask 077; ${NET_PREPARE_LINES}`,
    [runDir],
    { timeoutMs: 60_000 },
  );
}
