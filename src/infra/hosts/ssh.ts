// OpenSSH is the transport to hosts (issue 24): the system `ssh` binary with
// the person's own config, keys, agent and ProxyJump; never an SSH library and
// never a password store. One multiplexed connection per host (ControlMaster
// with its socket in a private folder of GROVE_HOME), keepalives, and
// BatchMode: a host that would prompt fails at once, and the failure is put
// in words. Nothing is forwarded to the host: not the agent, not X11, no port.
import { lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstLine, runTool, type ToolRun } from '../exec.js';
import { makePrivateDir } from '../private-files.js';

/** The longest unix socket path: 104 bytes on macOS (108 on Linux), less ssh's temporary suffix. */
const SOCKET_PATH_MAX = 104 - 18;
/** `%C`: a 40-character hash of this host, the host, its port and the user. */
const CONTROL_NAME = '%C';
const HASH_LENGTH = 40;

/** How long an idle shared connection stays open after its last command. */
export const CONTROL_PERSIST_SECONDS = 60;

export interface SshOptions {
  /** Grove's environment, handed to ssh as it is (SSH_AUTH_SOCK for the agent, HOME). */
  readonly env: NodeJS.ProcessEnv;
  /** Where the shared connections' sockets go; null: no sharing. */
  readonly controlDir: string | null;
  /** An ssh_config file used instead of ~/.ssh/config (GROVE_SSH_CONFIG), else null. */
  readonly configFile: string | null;
}

export interface RemoteRunOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Written to the remote command's stdin. */
  readonly input?: string;
}

export interface Ssh {
  /**
   * Runs `command`, one string for the host user's POSIX shell (build it with
   * `shellCommand`), on `destination`. Never throws; ssh's own failures exit 255.
   */
  run(destination: string, command: string, options: RemoteRunOptions): Promise<ToolRun>;
  /** Ends the shared connection to `destination` (if one is open). */
  close(destination: string): Promise<void>;
  /**
   * `ssh` and its options, without a destination: for callers that start ssh
   * themselves (a stream, or git's GIT_SSH_COMMAND), so they share the same
   * connection. Append `--`, the destination and the command.
   */
  readonly command: readonly string[];
  /** The environment ssh runs in. */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * The folder for the control sockets: `GROVE_HOME/ssh` (0700), or a private
 * `grove-ssh-UID` folder in the temp folder when GROVE_HOME is too deep for a
 * socket path; null (no sharing) when neither is safe to use.
 */
export function controlDir(groveHome: string): string | null {
  const uid = process.getuid?.() ?? -1;
  for (const dir of [join(groveHome, 'ssh'), join(tmpdir(), `grove-ssh-${uid}`)]) {
    if (dir.length + 1 + HASH_LENGTH > SOCKET_PATH_MAX) continue;
    makePrivateDir(dir);
    try {
      const stat = lstatSync(dir);
      // Ours, a real folder, and nobody else's to enter (another user could race a shared /tmp).
      if (stat.isDirectory() && (uid < 0 || stat.uid === uid) && (stat.mode & 0o077) === 0)
        return dir;
    } catch {
      // Cannot create it: try the next one.
    }
  }
  return null;
}

/** ssh's options, the same for every remote command; they come before the person's config. */
export function sshOptions(options: Pick<SshOptions, 'controlDir' | 'configFile'>): string[] {
  const o = (setting: string): string[] => ['-o', setting];
  return [
    ...(options.configFile === null ? [] : ['-F', options.configFile]),
    // No terminal: the remote command's bytes pass unchanged.
    '-T',
    ...o('BatchMode=yes'),
    ...o('ConnectTimeout=15'),
    ...(options.controlDir === null
      ? o('ControlMaster=no')
      : [
          ...o('ControlMaster=auto'),
          ...o(`ControlPath=${join(options.controlDir, CONTROL_NAME)}`),
          ...o(`ControlPersist=${CONTROL_PERSIST_SECONDS}`),
        ]),
    ...o('ServerAliveInterval=15'),
    ...o('ServerAliveCountMax=3'),
    ...o('ForwardAgent=no'),
    ...o('ForwardX11=no'),
    ...o('ClearAllForwardings=yes'),
    ...o('PermitLocalCommand=no'),
  ];
}

/** The whole argument list: options, `--`, the destination, and the one command string. */
export function sshArgs(
  options: Pick<SshOptions, 'controlDir' | 'configFile'>,
  destination: string,
  command: string,
): string[] {
  return [...sshOptions(options), '--', destination, command];
}

export function createSsh(options: SshOptions): Ssh {
  return {
    command: ['ssh', ...sshOptions(options)],
    env: options.env,
    run: (destination, command, run) =>
      runTool('ssh', sshArgs(options, destination, command), {
        env: options.env,
        timeoutMs: run.timeoutMs,
        ...(run.signal ? { signal: run.signal } : {}),
        ...(run.input === undefined ? {} : { input: run.input }),
      }),
    async close(destination) {
      if (options.controlDir === null) return;
      await runTool('ssh', [...sshOptions(options), '-O', 'exit', '--', destination], {
        env: options.env,
        timeoutMs: 5000,
      });
    },
  };
}

/** What ssh exits with when it fails itself (not the remote command). */
export const SSH_FAILED = 255;

export interface SshFailure {
  readonly reason: string;
  readonly fix: string;
}

/** ssh's own failure in words (null when ssh logged in and the remote command ran). */
export function sshFailure(run: ToolRun, destination: string): SshFailure | null {
  if (run.code !== null && run.code !== SSH_FAILED) return null;
  if (run.code === null)
    return {
      reason: `ssh to ${destination} did not finish (${run.error ?? 'stopped'})`,
      fix: `check that the host answers: ssh -o BatchMode=yes ${destination} true`,
    };
  const said = run.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('Warning: Permanently added'));
  const line = said.find((l) => !/^warning:/i.test(l)) ?? firstLine(run.stderr);
  const check = `then \`ssh -o BatchMode=yes ${destination} true\` must work without a question`;
  if (/Permission denied|Too many authentication failures/i.test(run.stderr))
    return {
      reason: `ssh cannot log in to ${destination} without a prompt (Grove never types a password or passphrase: BatchMode): ${line}`,
      fix: `set up key login (ssh-copy-id ${destination}); for a key with a passphrase, add it to your ssh agent (ssh-add); ${check}`,
    };
  if (/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(run.stderr))
    return {
      reason: `the host key of ${destination} is unknown or has changed, and ssh asks nothing in BatchMode: ${line}`,
      fix: `connect once by hand (ssh ${destination}) and check the host key; ${check}`,
    };
  if (/Could not resolve hostname/i.test(run.stderr))
    return {
      reason: `ssh cannot find ${destination}: ${line}`,
      fix: 'check the name (an alias must be in your ~/.ssh/config, or GROVE_SSH_CONFIG)',
    };
  return {
    reason: `ssh to ${destination} failed: ${line || `exit ${SSH_FAILED}`}`,
    fix: `check the connection: ssh -o BatchMode=yes ${destination} true`,
  };
}

/** The transport as Grove runs it: the person's ssh, GROVE_SSH_CONFIG if set, sockets under GROVE_HOME. */
export function groveSsh(env: NodeJS.ProcessEnv, groveHome: string): Ssh {
  const configFile = env['GROVE_SSH_CONFIG']?.trim() || null;
  return createSsh({ env, controlDir: controlDir(groveHome), configFile });
}
