// An agent CLI on a host (issue 24): started detached through remote-run.ts
// in the session's worktree there, its prompt sent as a file (never on a
// command line, which the host's `ps` shows), its stdout followed by byte
// offset so a dropped link loses and repeats nothing, and its process group
// ended on a stop. Inside bubblewrap when the host has it: the worktree, the
// session's part of the mirror and the CLI's own folder writable, the rest of
// the host read-only and Grove's other folders on it hidden.
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { HostPlace } from '../../domain/host.js';
import { reconnectDelayMs, reconnectingLine } from '../../domain/reconnect.js';
import type {
  RemoteAgentStarter,
  RemoteRunCursor,
  RemoteStateDir,
  TurnProcess,
} from '../agent/channel.js';
import { shellCommand, shellQuote } from './quote.js';
import {
  cancelRun,
  followRun,
  newRunId,
  pause,
  startRun,
  type RemoteRunner,
} from './remote-run.js';
import { HostError, runScript } from './remote-script.js';
import type { Ssh } from './ssh.js';
import {
  connectNetwork,
  NET_PREPARE_LINES,
  networkOptions,
  openNetworkNotice,
  networkPrelude,
  prepareNetwork,
  relayWords,
  type RunNetwork,
  type SandboxNetwork,
} from './remote-network.js';

const STDERR_TAIL = 8 * 1024;

/** Claude Code's own folder on the host: the host user's CLAUDE_CONFIG_DIR, else ~/.claude. */
const CLAUDE_STATE: RemoteStateDir = { variable: 'CLAUDE_CONFIG_DIR', fallback: '.claude' };

const VARIABLE = /^[A-Z_][A-Z0-9_]{0,63}$/;
const FOLDER = /^\.?[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

/**
 * A CLI's own folder on the host, as the host's shell expands it: the host
 * user's `variable`, else `fallback` in its home (and `inside` it, when set).
 * Fixed text (no value of Grove's is pasted in, and every name is checked);
 * the sandbox gets the variable set, so the CLI keeps its whole state there
 * (Claude Code would otherwise rewrite ~/.claude.json by a rename in the
 * read-only home).
 */
export function stateDirWord(state: RemoteStateDir): string {
  const inside = state.inside ?? '';
  return inside === ''
    ? stateParentWord(state)
    : `${stateParentWord(state).slice(0, -1)}/${inside}"`;
}

/** A file in the state folder, as the host's shell expands it (its name checked). */
export function stateFileWord(state: RemoteStateDir, name: string): string {
  if (!FOLDER.test(name)) throw new HostError(`'${name}' cannot name a file of a state folder`);
  return `${stateDirWord(state).slice(0, -1)}/${name}"`;
}

/** What the sandbox sets the state variable to (the folder, or its parent with `inside`). */
export function stateParentWord(state: RemoteStateDir): string {
  const inside = state.inside ?? '';
  if (
    !VARIABLE.test(state.variable) ||
    (state.fallback !== '' && !FOLDER.test(state.fallback)) ||
    (inside !== '' && !FOLDER.test(inside))
  )
    throw new HostError(`'${state.variable}' cannot name a state folder`);
  const home = state.fallback === '' ? '$HOME' : `$HOME/${state.fallback}`;
  return `"\${${state.variable}:-${home}}"`;
}

/**
 * The command line that starts `words` inside bubblewrap on the host: one
 * string for the host's `sh -c`, every path quoted. It ends in `exec bwrap`,
 * so the shell's pid becomes the sandbox's.
 */
export function sandboxedCommand(
  place: HostPlace,
  words: readonly string[],
  state: RemoteStateDir = CLAUDE_STATE,
  network: SandboxNetwork | null = null,
): string {
  const q = shellQuote;
  const bind = (flag: string, path: string): string => `${flag} ${q(path)} ${q(path)}`;
  const gitDir = `${place.mirror}/worktrees/${place.worktree.split('/').pop() ?? ''}`;
  const [command = '', ...args] = words;
  const stateDir = stateDirWord(state);
  // The config file that names the model servers stays read-only: made empty when missing, so the
  // agent cannot create one that puts a server of its choosing on the next run's allow list.
  const config = state.config ? stateFileWord(state, state.config) : null;
  return [
    `mkdir -p ${stateDir} &&`,
    ...(config ? [`{ [ -e ${config} ] || [ -L ${config} ] || : > ${config}; } &&`] : []),
    // The CLI is found on the host user's PATH before the sandbox starts and run by its real
    // path, its package folder shown read-only again: one installed under /tmp (hidden by the
    // sandbox's own /tmp) still runs.
    `{ grove_agent=$(command -v -- ${q(command)}) && grove_agent=$(readlink -f -- "$grove_agent") ||`,
    `{ echo ${q(`grove: ${command} is not on the PATH of the host user`)} >&2; exit 127; }; } &&`,
    'grove_agent_dir=$(dirname -- "$(dirname -- "$grove_agent")") &&',
    ...(network ? networkPrelude(network) : []),
    'exec bwrap --die-with-parent --new-session --unshare-pid --unshare-ipc --unshare-uts',
    '--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp',
    '--ro-bind "$grove_agent_dir" "$grove_agent_dir"',
    // Grove's folder on the host: hidden, but for this project's mirror (read-only) and this session.
    `--tmpfs ${q(place.root)}`,
    bind('--ro-bind', place.mirror),
    bind('--bind', `${place.mirror}/objects`),
    bind('--bind', `${place.mirror}/refs`),
    bind('--bind-try', gitDir),
    bind('--bind', place.worktree),
    `--bind ${stateDir} ${stateDir} --setenv ${state.variable} ${stateParentWord(state)}`,
    ...(config ? [`--ro-bind-try ${config} ${config}`] : []),
    ...(network ? networkOptions(network) : []),
    `--chdir ${q(place.worktree)}`,
    '--',
    [
      ...(network ? relayWords(network) : []),
      '"$grove_agent"',
      ...args.map((arg) => shellQuote(arg)),
    ].join(' '),
  ].join(' ');
}

/** The whole command for the run: the agent (confined or not) with its prompt file as stdin. */
export function agentCommand(
  place: HostPlace,
  words: readonly string[],
  promptFile: string,
  network: SandboxNetwork | null = null,
): string {
  const start = place.confined
    ? sandboxedCommand(place, words, CLAUDE_STATE, network)
    : `exec ${shellCommand(words)}`;
  return `${start} < ${shellQuote(promptFile)}`;
}

/** Whether agents on a host may run unconfined (`host.NAME.allowUnconfined`): also with an open network. */
export type AllowOnHost = (host: HostPlace['host']) => Promise<boolean>;

/** Starts one-shot agents (a process per turn) on hosts over `ssh`; remote-server.ts adds servers. */
export function remoteAgentStarter(
  ssh: Ssh,
  allowOpen: AllowOnHost = () => Promise.resolve(false),
): Pick<RemoteAgentStarter, 'start'> {
  return {
    async start(place, spec) {
      const runner: RemoteRunner = { ssh, host: place.host };
      const tell = { progress: spec.onReconnect, notice: spec.onNotice };
      const cursor = spec.cursor;
      const filtered = place.confined && spec.network ? spec.network : null;
      const connect = (dir: string, printed: string): Promise<RunNetwork | null> =>
        filtered
          ? connectNetwork(
              ssh,
              place,
              dir,
              filtered,
              printed,
              () => allowOpen(place.host),
              (why) => tell.notice?.(openNetworkNotice(place.host.name, why)),
            )
          : Promise.resolve(null);
      if (cursor?.runId) {
        // Re-attach (a Grove that was killed mid-turn): its output read on from where the transcript is.
        const dir = `${place.root}/runs/${cursor.runId}`;
        const network = filtered ? await connect(dir, await prepareNetwork(ssh, place, dir)) : null;
        return closing(followAgent(runner, cursor.runId, cursor.pgid, dir, tell, cursor), network);
      }
      const runId = newRunId();
      const dir = `${place.root}/runs/${runId}`;
      const promptFile = `${dir}/prompt`;
      // The prompt goes on ssh's stdin into a file only the host user reads.
      const printed = await runScript(
        ssh,
        place.host,
        `sending the prompt to ${place.host.name}`,
        `umask 077; mkdir -p -- "$1" && cat > "$1/prompt"${filtered ? ` && ${NET_PREPARE_LINES}` : ''}`,
        [dir],
        // Attached images can make it megabytes: a minute, and a second more per 50 kB.
        {
          timeoutMs: 60_000 + Math.ceil(Buffer.byteLength(spec.input) / 50_000) * 1000,
          input: spec.input,
        },
      );
      const network = await connect(dir, printed);
      let run: Awaited<ReturnType<typeof startRun>>;
      try {
        run = await startRun(
          runner,
          agentCommand(place, [spec.command, ...spec.args], promptFile, network?.sandbox ?? null),
          { cwd: place.worktree, runId },
        );
      } catch (error) {
        network?.close();
        throw error;
      }
      if (cursor) {
        cursor.runId = runId;
        cursor.pgid = run.pgid;
        cursor.offset = 0;
        await cursor.started?.(runId, run.pgid);
      }
      return closing(followAgent(runner, runId, run.pgid, dir, tell, cursor), network);
    },
  };
}

/** The process, its network's forward and listener closed once it is over. */
function closing(proc: TurnProcess, network: RunNetwork | null): TurnProcess {
  if (network) void proc.exited.finally(() => network.close());
  return proc;
}

export interface Tell {
  /** A line for the progress row. */
  readonly progress: ((text: string) => void) | undefined;
  /** A line for the transcript. */
  readonly notice: ((text: string) => void) | undefined;
}

/**
 * The run as a TurnProcess: stdout streamed from byte 0 (reconnecting as
 * needed, for as long as it takes, the progress row saying so), stderr read
 * at the end. A stop while the host cannot be reached keeps trying on the
 * same schedule, the transcript saying so once, and the process ends only
 * once the run's process group on the host is really gone.
 */
export function followAgent(
  runner: RemoteRunner,
  runId: string,
  pgid: number | null,
  dir: string,
  tell: Tell,
  cursor: RemoteRunCursor | undefined,
): TurnProcess {
  const stdout = new PassThrough();
  const lines = cursor ? new LineFeed(stdout, cursor) : null;
  /** Aborted once the following ended: the run is over (or gone), nothing left to stop. */
  const over = new AbortController();
  let stderr = '';
  let cancelling: Promise<void> | null = null;
  const name = runner.host.name;
  const followed = followRun(runner, runId, {
    offset: cursor?.offset ?? 0,
    pgid,
    onData: (chunk) => (lines ? lines.add(chunk) : stdout.write(chunk)),
    onReconnect: (attempt, _offset, delayMs) =>
      tell.progress?.(reconnectingLine(name, attempt, delayMs)),
    onReconnected: () => tell.progress?.(`Working (reconnected to ${name})`),
  }).then(
    (end) => ({ code: end.exitCode, signal: null }),
    (error: unknown) => {
      stderr = `${error instanceof Error ? error.message : String(error)}\n`;
      return { code: null, signal: null };
    },
  );
  void followed.then(() => over.abort());
  const cancel = async (): Promise<void> => {
    for (let attempt = 1; !over.signal.aborted; attempt++) {
      try {
        await cancelRun(runner, runId, over.signal, pgid);
        return;
      } catch (error) {
        if (over.signal.aborted) return;
        const delayMs = reconnectDelayMs(attempt, Math.random());
        if (attempt === 1) {
          const why = error instanceof Error ? error.message : String(error);
          tell.notice?.(
            `Could not reach ${name} to stop the agent there yet (${why}). It may still be working on ${name}; Grove keeps trying, and the turn ends once the agent is stopped.`,
          );
        }
        tell.progress?.(
          `Stopping: cannot reach ${name} yet (try ${String(attempt)}, next in ${String(Math.max(1, Math.round(delayMs / 1000)))}s)`,
        );
        await pause(delayMs, over.signal);
      }
    }
  };
  const exited = followed.then(async (end) => {
    await lines?.end();
    stdout.end();
    await finished(stdout).catch(() => undefined);
    if (end.code !== null && end.code !== 0) {
      const err = await runScript(
        runner.ssh,
        runner.host,
        `the errors of run ${runId}`,
        `tail -c ${STDERR_TAIL} -- "$1/err" 2>/dev/null; exit 0`,
        [dir],
        { timeoutMs: 30_000 },
      ).catch(() => '');
      stderr = err;
    }
    return end;
  });
  return {
    stdout,
    exited,
    stderrTail: () => stderr,
    kill() {
      // Once stopped on the host the following sees its exit (143) and ends the turn.
      cancelling ??= cancel();
    },
  };
}

/**
 * Hands the run's stdout on one whole line at a time, each read by the
 * channel (its handlers run as the line arrives) before the next: while a
 * line is handled the cursor's offset is the end of that line, which is what
 * the turn records with the transcript entry the line made.
 */
class LineFeed {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private chain: Promise<void> = Promise.resolve();
  private fed: number;

  constructor(
    private readonly out: PassThrough,
    private readonly cursor: RemoteRunCursor,
  ) {
    this.fed = cursor.offset;
  }

  add(chunk: Buffer): void {
    let start = 0;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
      const line = Buffer.concat([...this.pending, chunk.subarray(start, at + 1)]);
      this.pending = [];
      this.pendingBytes = 0;
      start = at + 1;
      this.feed(line);
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
    }
  }

  /** Feeds what is left (a last line with no newline) and waits until every line was read. */
  async end(): Promise<void> {
    if (this.pendingBytes > 0) this.feed(Buffer.concat(this.pending));
    this.pending = [];
    await this.chain;
  }

  private feed(line: Buffer): void {
    this.fed += line.length;
    const end = this.fed;
    this.chain = this.chain.then(async () => {
      this.cursor.offset = end;
      this.out.write(line);
      // The channel's line handler has run by now (readline is synchronous on data).
      await new Promise((resolve) => setImmediate(resolve));
      this.cursor.line?.();
    });
  }
}
