// The reverse forward that carries a confined agent's network on a host to
// Grove's filtering proxy on this machine (issue 24, item 5). One ssh per
// turn, its own connection (not the shared one: a forward asked of the
// control master outlives the ssh that asked for it and cannot be watched
// for a drop), that forwards one unix socket in the run's `net` folder on the
// host to the proxy listener's socket here, and runs a command that only
// says the socket is there and then waits. Each try binds a socket of its
// own name (`f1`, `f2`, …: sshd does not remove a socket it bound, and the
// connection of a dropped link may still hold the old one) and points the
// link `sock`, which the relay in the sandbox connects to, at it. When the
// ssh ends (the link dropped, the connection killed), it is made again on
// the reconnect schedule until the turn closes it.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Host } from '../../domain/host.js';
import { reconnectDelayMs } from '../../domain/reconnect.js';
import { shellCommand } from './quote.js';
import { pause } from './remote-run.js';
import { HostError } from './remote-script.js';
import { sshFailure, type Ssh } from './ssh.js';

/** The forward's socket cannot be made on the host: its sshd does not forward unix sockets. */
export class ForwardRefused extends HostError {}

/** $1 the run's `net` folder, $2 this try's socket: present, linked as `sock`, the others removed; then waits. */
const FORWARD_SCRIPT = `cd -- "$1" || exit 4
[ -S "$2" ] || { echo "the forwarded socket was not made" >&2; exit 3; }
ln -sf -- "$2" sock.new && mv -f -- sock.new sock || exit 4
for f in f[0-9]*; do [ "$f" = "$2" ] || rm -f -- "$f"; done
echo ${'grove-forward-up'}
exec cat > /dev/null
`;

const UP = 'grove-forward-up\n';

/** Options of the shared transport that this ssh must not have: it carries one forward, on a connection of its own. */
const DROPPED = /^(ClearAllForwardings|ControlMaster|ControlPath|ControlPersist)=/i;

/**
 * ssh's arguments for one try: the transport's options but the sharing and
 * ClearAllForwardings (which would clear this forward too), then
 * `-R remote:local`. Forwards the person's config names for the host are
 * made too (ssh clears all or none); ExitOnForwardFailure stays off so one of
 * theirs that fails does not end this one, whose socket the command checks.
 */
export function forwardArgs(
  ssh: Ssh,
  destination: string,
  remoteSocket: string,
  localSocket: string,
  command: string,
): string[] {
  const [, ...options] = ssh.command;
  const kept: string[] = [];
  for (let i = 0; i < options.length; i++) {
    const option = options[i] ?? '';
    if (option === '-o' && DROPPED.test(options[i + 1] ?? '')) {
      i += 1;
      continue;
    }
    kept.push(option);
  }
  return [
    ...kept,
    ...['-o', 'ControlMaster=no', '-o', 'ControlPath=none', '-o', 'ExitOnForwardFailure=no'],
    '-R',
    `${remoteSocket}:${localSocket}`,
    '--',
    destination,
    command,
  ];
}

export interface HostForward {
  /** Resolves once the first forward is up; rejects with ForwardRefused or a HostError in words. */
  readonly ready: Promise<void>;
  /** The ssh of the current try (tests kill it to drop the link). */
  pid(): number | undefined;
  /** Ends the forward and stops making it again. */
  close(): void;
}

/** How long the first try may take. */
const FIRST_TRY_MS = 30_000;

/**
 * Forwards `<netDir>/sock` on the host to `localSocket` here for as long as
 * the turn runs, making it again whenever its ssh ends.
 */
export function startForward(
  ssh: Ssh,
  host: Host,
  netDir: string,
  localSocket: string,
  onDrop?: (attempt: number) => void,
): HostForward {
  const closed = new AbortController();
  let child: ChildProcess | null = null;
  let resolveReady: () => void = () => undefined;
  let rejectReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((ok, fail) => {
    resolveReady = ok;
    rejectReady = fail;
  });
  // A caller that stops before awaiting it must not leave an unhandled rejection.
  ready.catch(() => undefined);

  const once = (n: number): Promise<{ up: boolean; code: number | null; stderr: string }> =>
    new Promise((resolve) => {
      const name = `f${String(n)}`;
      const command = shellCommand(['sh', '-c', FORWARD_SCRIPT, 'grove', netDir, name]);
      const proc = spawn(
        ssh.command[0] ?? 'ssh',
        forwardArgs(ssh, host.destination, `${netDir}/${name}`, localSocket, command),
        { env: ssh.env, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      child = proc;
      let up = false;
      let out = '';
      let stderr = '';
      const timer = setTimeout(() => {
        if (!up) proc.kill('SIGTERM');
      }, FIRST_TRY_MS);
      proc.stdout.on('data', (chunk: Buffer) => {
        if (up) return;
        out += chunk.toString('utf8');
        if (out.includes(UP)) {
          up = true;
          clearTimeout(timer);
          resolveReady();
        }
      });
      proc.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 4000) stderr += chunk.toString('utf8');
      });
      proc.stdin.on('error', () => undefined);
      proc.once('error', (error) => {
        clearTimeout(timer);
        resolve({ up, code: null, stderr: error.message });
      });
      proc.once('close', (code) => {
        clearTimeout(timer);
        resolve({ up, code, stderr });
      });
    });

  const keep = async (): Promise<void> => {
    let wasUp = false;
    for (let n = 1, down = 0; !closed.signal.aborted; n++) {
      const end = await once(n);
      if (closed.signal.aborted) return;
      if (!wasUp && !end.up) {
        rejectReady(forwardFailure(host, end));
        return;
      }
      wasUp = true;
      down = end.up ? 1 : down + 1;
      onDrop?.(down);
      await pause(reconnectDelayMs(down, Math.random()), closed.signal);
    }
  };
  void keep();

  return {
    ready,
    pid: () => child?.pid,
    close() {
      if (closed.signal.aborted) return;
      closed.abort();
      child?.kill('SIGTERM');
      rejectReady(new HostError(`the network forward to ${host.name} was closed`));
    },
  };
}

function forwardFailure(host: Host, end: { code: number | null; stderr: string }): Error {
  if (end.code === 3)
    return new ForwardRefused(
      `the ssh server of ${host.name} does not forward a unix socket (AllowStreamLocalForwarding or DisableForwarding in its sshd_config), so the agent's network there cannot go through Grove's filter`,
      `allow it on ${host.name} (AllowStreamLocalForwarding yes), or let agents on ${host.name} reach any host: grove config set host.${host.name}.allowOpenNetwork on`,
    );
  const failure = sshFailure(
    { code: end.code, stdout: '', stderr: end.stderr, error: end.code === null ? 'stopped' : null },
    host.destination,
  );
  if (failure)
    return new HostError(`the network forward to ${host.name}: ${failure.reason}`, failure.fix);
  return new HostError(
    `the network forward to ${host.name} failed (exit ${String(end.code)}): ${end.stderr.trim().split('\n')[0] ?? ''}`,
  );
}
