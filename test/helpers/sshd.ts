import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { liveProcesses } from './processes.js';
import { waitUntil } from './wait.js';

// A private OpenSSH server for the host tests (issue 24): Debian's sshd run
// as a plain process on 127.0.0.1 at a free high port, with its own config,
// host key, pid file and log in a temp folder (never the system service,
// nothing in /etc/ssh changed). It logs in as a SECOND unix user with its own
// home, so a local path that leaks into a remote command fails. Test files
// run side by side, and several look at everything their host user runs
// (`ps -u USER`, the environments of its processes): so each Vitest worker
// logs in as a host user of its own (grove-host, grove-host-2, …).
// The client side is an ssh_config file (`ssh -F config ALIAS`, or
// GROVE_SSH_CONFIG for Grove) with the host key pinned.

export const SSHD = '/usr/sbin/sshd';
/** The first of the host users (grove-host, grove-host-2, …: one per Vitest worker, made once each with useradd -m). */
export const HOST_USER = 'grove-host';

/** Why the test sshd cannot run here, or null when it can. */
export function sshdProblem(): string | null {
  if (!existsSync(SSHD))
    return `${SSHD} is missing: install Debian's openssh-server (apt-get install openssh-server; .ci/run does)`;
  if (process.getuid?.() !== 0)
    return `the host tests need root to create the second unix user '${HOST_USER}' (running as uid ${String(process.getuid?.())})`;
  return null;
}

/**
 * `it` when the test sshd can run; otherwise a test that fails with the
 * reason on CI (where it must run) and is skipped with it elsewhere.
 */
export function sshdIt(): typeof it {
  const problem = sshdProblem();
  if (problem === null) return it;
  if (process.env['CI']) {
    const failing = ((name: string) =>
      it(name, () => {
        throw new Error(`cannot start the test sshd: ${problem}`);
      })) as unknown as typeof it;
    return Object.assign(failing, { each: it.each }) as typeof it;
  }
  return it.skip.bind(it) as unknown as typeof it;
}

export interface TestHost {
  /** The Host alias in `config` that logs in with a key (HostName 127.0.0.1, Port, User, key, known host). */
  readonly alias: string;
  /** An alias whose only key has a passphrase: without BatchMode ssh would prompt. */
  readonly lockedAlias: string;
  /** The client's ssh_config file. */
  readonly config: string;
  readonly port: number;
  readonly user: string;
  /** The host user's home folder. */
  readonly home: string;
  /** The temp folder with the server's config, keys, pid file and log. */
  readonly dir: string;
  readonly log: () => string;
  /** Runs `ssh -F config alias command` (one string, as the remote shell reads it). */
  ssh(command: string): string;
  /**
   * The host drops off the network for a while: kills the sshd and every
   * process it started (connections, sessions: a detached run, reparented
   * away from them, keeps going), keeping its folder, port and host key.
   */
  down(): Promise<void>;
  /** The host answers again: starts the sshd on the same port with the same config and host key. */
  up(): Promise<void>;
  /** Stops the sshd and every process it started (connections, sessions), and removes its folder. */
  stop(): Promise<void>;
}

export interface SshdOptions {
  /** Folders put first on PATH for the host user's commands (sshd's SetEnv). */
  readonly path?: readonly string[];
  /** More variables for the host user's commands (sshd's SetEnv). */
  readonly env?: Readonly<Record<string, string>>;
  /** More sshd_config lines (AllowStreamLocalForwarding no). */
  readonly config?: readonly string[];
}

function run(file: string, args: readonly string[]): string {
  return execFileSync(file, [...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function userExists(user: string): boolean {
  try {
    run('id', ['-u', user]);
    return true;
  } catch {
    return false;
  }
}

let held: { name: string; uid: number; gid: number; home: string } | null = null;

/**
 * This test process's host user, made once (useradd -m); `*` as its
 * password lets a key log in (useradd's `!` locks the account). Vitest
 * numbers its workers (VITEST_POOL_ID, 1 to maxWorkers), and no two test
 * files run in the same worker at once: worker N logs in as the Nth user.
 */
export function ensureHostUser(): { name: string; uid: number; gid: number; home: string } {
  if (held) return held;
  const worker = Number(process.env['VITEST_POOL_ID'] ?? '1');
  const n = Number.isInteger(worker) && worker >= 1 ? worker : 1;
  const name = n === 1 ? HOST_USER : `${HOST_USER}-${n}`;
  if (!userExists(name)) {
    try {
      run('useradd', ['-m', '-s', '/bin/sh', name]);
    } catch (error) {
      // Another test file may have made it at the same moment.
      if (!userExists(name)) throw error;
    }
  }
  run('usermod', ['-p', '*', name]);
  const [, , uid, gid, , home] = run('getent', ['passwd', name]).trim().split(':');
  held = { name, uid: Number(uid), gid: Number(gid), home: home ?? `/home/${name}` };
  return held;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function keygen(file: string, passphrase = ''): string {
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'grove-test', '-f', file]);
  return readFileSync(`${file}.pub`, 'utf8').trim();
}

/** Every live process below `pid`. */
function descendants(pid: number): number[] {
  const all = liveProcesses();
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const children = all.filter((p) => frontier.includes(p.ppid)).map((p) => p.pid);
    found.push(...children);
    frontier = children;
  }
  return found;
}

/** Starts a private sshd; call `stop()` in afterAll. */
export async function startSshd(options: SshdOptions = {}): Promise<TestHost> {
  const problem = sshdProblem();
  if (problem) throw new Error(`cannot start the test sshd: ${problem}`);
  const user = ensureHostUser();
  const dir = mkdtempSync(join(tmpdir(), 'grove-sshd-'));
  // The host user reads its authorized keys here (sshd opens them as that user).
  chmodSync(dir, 0o711);
  const hostKey = keygen(join(dir, 'host_key'));
  const clientKey = keygen(join(dir, 'client_key'));
  const lockedKey = keygen(join(dir, 'locked_key'), 'a passphrase nobody types');
  const authorized = join(dir, 'authorized_keys');
  writeFileSync(authorized, `${clientKey}\n${lockedKey}\n`, { mode: 0o600 });
  chownSync(authorized, user.uid, user.gid);
  // sshd refuses to start without its privilege separation folder.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  const port = await freePort();
  const setEnv = [
    ...(options.path && options.path.length > 0
      ? [`PATH=${[...options.path, '/usr/local/bin:/usr/bin:/bin'].join(':')}`]
      : []),
    ...Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`),
  ];
  const pathLine = setEnv.length > 0 ? [`SetEnv ${setEnv.join(' ')}`] : [];
  const serverConfig = join(dir, 'sshd_config');
  writeFileSync(
    serverConfig,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      // The keys sit in a temp folder, not the user's ~/.ssh: /tmp is world-writable.
      'StrictModes no',
      'UsePAM no',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin no',
      `AllowUsers ${user.name}`,
      'X11Forwarding no',
      'PrintMotd no',
      'LogLevel VERBOSE',
      ...pathLine,
      ...(options.config ?? []),
      '',
    ].join('\n'),
  );
  const logFile = join(dir, 'sshd.log');
  const log = (): string => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  let server: { child: ChildProcess; exited: Promise<void> } | null = null;
  /** Starts the sshd; resolves once it listens (a line of its log after `logFrom` bytes). */
  const listen = async (): Promise<void> => {
    const logFrom = log().length;
    const child: ChildProcess = spawn(SSHD, ['-D', '-f', serverConfig, '-E', logFile], {
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    server = { child, exited };
    try {
      await waitUntil(
        `sshd listens on 127.0.0.1:${port}`,
        () => {
          if (child.exitCode !== null) throw new Error(`sshd exited: ${log().slice(logFrom)}`);
          return log().slice(logFrom).includes(`Server listening on 127.0.0.1 port ${port}`);
        },
        10_000,
      );
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  };
  /** Kills the sshd and every process below it. */
  const halt = async (): Promise<void> => {
    const running = server;
    if (!running) return;
    server = null;
    const pid = running.child.pid;
    const below = pid === undefined ? [] : descendants(pid);
    for (const p of below) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    running.child.kill('SIGTERM');
    await running.exited;
  };
  await listen();

  const knownHosts = join(dir, 'known_hosts');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostKey}\n`);
  const alias = `grove-test-host-${port}`;
  const lockedAlias = `${alias}-locked`;
  const block = (name: string, key: string): string =>
    [
      `Host ${name}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user.name}`,
      `  IdentityFile ${key}`,
      '  IdentitiesOnly yes',
      '  IdentityAgent none',
      `  UserKnownHostsFile ${knownHosts}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '  UpdateHostKeys no',
      '',
    ].join('\n');
  const config = join(dir, 'ssh_config');
  writeFileSync(
    config,
    block(alias, join(dir, 'client_key')) + block(lockedAlias, join(dir, 'locked_key')),
  );

  let stopped = false;
  return {
    alias,
    lockedAlias,
    config,
    port,
    user: user.name,
    home: user.home,
    dir,
    log,
    ssh: (command) => run('ssh', ['-F', config, '-o', 'BatchMode=yes', '-T', '--', alias, command]),
    down: halt,
    async up() {
      if (stopped || server) return;
      await listen();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
