// A long-lived, two-way agent process on a host (issue 24, item 4): Codex's
// app-server or Gemini CLI's ACP process, which read lines on stdin for as
// long as they run. Confined, its network goes through Grove's filter here
// (remote-network.ts) for as long as it runs.
// It starts detached through remote-run.ts like a one-shot agent (its stdout
// followed by byte offset, so a dropped link loses and repeats nothing), and
// its stdin is a channel on the host that outlives the link:
//
//   <run folder>/in    every byte Grove sent, appended in order (0600)
//                pipe  a FIFO: a `tail -f` of `in` writes it, the process reads it
//
// Grove appends to `in` with one short command over the shared connection per
// batch of lines, saying at which byte offset the batch starts. The host
// appends only the bytes past what `in` already holds (under a lock, so a
// command from a dropped link that still runs there is waited for), so a batch
// whose command dropped mid-way and is sent again is neither lost nor doubled.
// The feeding `tail` holds the FIFO open for writing, so no writer's
// disconnect is ever an end of input; it ends with the process (GNU tail's
// --pid), and a stop ends the run's whole process group.
import { Writable } from 'node:stream';
import type { HostPlace } from '../../domain/host.js';
import { reconnectDelayMs } from '../../domain/reconnect.js';
import type { RemoteAgentStarter, RemoteServerProcess } from '../agent/channel.js';
import {
  followAgent,
  remoteAgentStarter,
  sandboxedCommand,
  stateFileWord,
  stateParentWord,
  type AllowOnHost,
} from './remote-agent.js';
import {
  configPrepareLines,
  connectNetwork,
  NET_PREPARE_LINES,
  openNetworkNotice,
  type RunNetwork,
} from './remote-network.js';
import { shellCommand, shellQuote } from './quote.js';
import { cancelRun, newRunId, pause, startRun, type RemoteRunner } from './remote-run.js';
import { runScript } from './remote-script.js';
import { sshFailure, type Ssh } from './ssh.js';

type ServerSpec = Parameters<RemoteAgentStarter['startServer']>[1];

/** $1 the run folder: made private, with an empty input log and the FIFO. */
const PREPARE_SCRIPT = `umask 077
mkdir -p -- "$1" && : > "$1/in" && rm -f -- "$1/pipe" && mkfifo -- "$1/pipe" || exit 1
`;

/**
 * Appends stdin to the input log $1/in from byte offset $2: what the log
 * already holds past $2 (an earlier try of the same batch that got there) is
 * skipped. Exit 3: no such run; 4: the log is shorter than what was sent
 * before this batch (changed on the host).
 */
const APPEND_SCRIPT = `in=$1/in
[ -f "$in" ] || { echo "no such run" >&2; exit 3; }
if command -v flock >/dev/null 2>&1; then exec 9>> "$1/in.lock" && flock 9 || exit 1; fi
size=$(($(wc -c < "$in")))
[ "$size" -ge "$2" ] || { echo "the input on the host is shorter than what was sent" >&2; exit 4; }
tail -c +$((size - $2 + 1)) >> "$in"
`;

/**
 * The run's command: the feeder (a `tail -f` of the input log into the FIFO,
 * which it opens read-write so it never waits for a reader) and the server
 * reading the FIFO. `start` ends in `exec`, so $$ is the server's pid and
 * GNU tail's --pid ends the feeder with it.
 */
export function serverCommand(dir: string, start: string): string {
  const input = shellQuote(`${dir}/in`);
  const pipe = shellQuote(`${dir}/pipe`);
  return [
    'grove_feed="tail -c +1 -f"',
    'if tail --version 2>/dev/null | grep -q GNU; then grove_feed="tail -c +1 -f --pid=$$"; fi',
    `$grove_feed -- ${input} 1<> ${pipe} &`,
    `${start} < ${pipe}`,
  ].join('\n');
}

/** The bytes of `text` as UTF-8. */
function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Lines for the run's stdin, delivered in order and exactly once: each batch
 * goes with the offset it starts at, and a batch whose command failed (the
 * link dropped, the host is away) is sent again on domain/reconnect.ts's
 * schedule until the host has it or the run is over.
 */
export class InputChannel {
  private pending: string[] = [];
  private pumping = false;

  constructor(
    private readonly runner: RemoteRunner,
    private readonly dir: string,
    private readonly over: AbortSignal,
    private readonly failed: (why: string) => void,
    /** The bytes the log holds already (a re-attach, remote-reattach.ts, goes on after them). */
    private sent = 0,
  ) {}

  readonly stdin = new Writable({
    decodeStrings: false,
    write: (chunk: string | Buffer, _encoding, callback) => {
      this.pending.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      void this.pump();
      callback();
    },
  });

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.pending.length > 0 && !this.over.aborted) {
        const batch = this.pending.join('');
        this.pending = [];
        if (!(await this.deliver(batch))) return;
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Sends `batch` from the current offset until the host has it; false when it never can. */
  private async deliver(batch: string): Promise<boolean> {
    const { ssh, host } = this.runner;
    const command = shellCommand(['sh', '-c', APPEND_SCRIPT, 'grove', this.dir, String(this.sent)]);
    for (let attempt = 1; !this.over.aborted; attempt++) {
      const run = await ssh.run(host.destination, command, {
        timeoutMs: 60_000,
        signal: this.over,
        input: batch,
      });
      if (this.over.aborted) return false;
      if (sshFailure(run, host.destination) === null) {
        if (run.code === 0) {
          this.sent += bytes(batch);
          return true;
        }
        if (run.code === 3 || run.code === 4) {
          this.failed(
            `the input of the agent's run on ${host.name} is gone or was changed there: ${run.stderr.trim()}`,
          );
          return false;
        }
      }
      // The link dropped or the host is away: the same batch again, from the same offset.
      await pause(reconnectDelayMs(attempt, Math.random()), this.over);
    }
    return false;
  }
}

/**
 * The server's network (issue 24, item 5), when it is confined and the
 * caller filters it: the host's model-server variables and the `base_url`
 * lines of its config file read by the prepare script, the listener here and
 * the forward opened. The forward is made again whenever the link drops, for
 * as long as the run goes on (it closes when the run ends).
 */
export function serverNetwork(
  ssh: Ssh,
  place: HostPlace,
  spec: Pick<ServerSpec, 'network' | 'stateDir' | 'onNotice'>,
  allowOpen: AllowOnHost,
): { lines: string; connect(dir: string, printed: string): Promise<RunNetwork | null> } {
  const filtered = place.confined && spec.network ? spec.network : null;
  if (!filtered) return { lines: '', connect: () => Promise.resolve(null) };
  const config = spec.stateDir.config ? stateFileWord(spec.stateDir, spec.stateDir.config) : null;
  return {
    lines: `${NET_PREPARE_LINES}${config ? ` && ${configPrepareLines(config)}` : ''}\n`,
    connect: (dir, printed) =>
      connectNetwork(
        ssh,
        place,
        dir,
        filtered,
        printed,
        () => allowOpen(place.host),
        (why) => spec.onNotice?.(openNetworkNotice(place.host.name, why)),
      ),
  };
}

/** Starts a long-lived server on the host (startServer of RemoteAgentStarter). */
export async function startRemoteServer(
  ssh: Ssh,
  place: HostPlace,
  spec: ServerSpec,
  allowOpen: AllowOnHost = () => Promise.resolve(false),
): Promise<RemoteServerProcess> {
  const runner: RemoteRunner = { ssh, host: place.host };
  const runId = newRunId();
  const dir = `${place.root}/runs/${runId}`;
  const filter = serverNetwork(ssh, place, spec, allowOpen);
  const printed = await runScript(
    ssh,
    place.host,
    `preparing the agent's run on ${place.host.name}`,
    PREPARE_SCRIPT + filter.lines,
    [dir],
    {
      timeoutMs: 60_000,
    },
  );
  const network = await filter.connect(dir, printed);
  const words = [spec.command, ...spec.args];
  const start = place.confined
    ? sandboxedCommand(place, words, spec.stateDir, network?.sandbox ?? null)
    : `export ${spec.stateDir.variable}=${stateParentWord(spec.stateDir)} && exec ${shellCommand(words)}`;
  let run: Awaited<ReturnType<typeof startRun>>;
  try {
    run = await startRun(runner, serverCommand(dir, start), { cwd: place.worktree, runId });
  } catch (error) {
    network?.close();
    throw error;
  }
  const cursor = spec.cursor;
  if (cursor) {
    cursor.runId = runId;
    cursor.pgid = run.pgid;
    cursor.offset = 0;
    await cursor.started?.(runId, run.pgid);
  }
  const tell = { progress: spec.onReconnect, notice: spec.onNotice };
  return serverProcess(
    runner,
    dir,
    followAgent(runner, runId, run.pgid, dir, tell, cursor),
    network,
  );
}

/**
 * A followed server run as its channel uses it: stdin through the run's
 * input log (from byte `sent` on, what it already holds), stopped when its
 * input can no longer reach it, and its network closed when it ends.
 */
export function serverProcess(
  runner: RemoteRunner,
  dir: string,
  proc: ReturnType<typeof followAgent>,
  network: RunNetwork | null,
  sent = 0,
): RemoteServerProcess {
  const over = new AbortController();
  let lost: string | null = null;
  const input = new InputChannel(
    runner,
    dir,
    over.signal,
    (why) => {
      // The input cannot reach the process any more: it is stopped, and the turn says why.
      lost = why;
      proc.kill();
    },
    sent,
  );
  void proc.exited.then(() => {
    over.abort();
    network?.close();
  });
  return {
    stdout: proc.stdout,
    exited: proc.exited,
    stdin: input.stdin,
    stderrTail: () => (lost ? `${lost}\n` : '') + proc.stderrTail(),
    kill: () => proc.kill(),
    async stop() {
      proc.kill();
      // A host that cannot be reached keeps the stop trying in the background; the caller goes on.
      const waiting = new AbortController();
      await Promise.race([proc.exited, pause(STOP_WAIT_MS, waiting.signal)]);
      waiting.abort();
    },
  };
}

/** How long a stop waits for the run on the host to end before the caller goes on. */
const STOP_WAIT_MS = 20_000;

/** How long stopping a run a Grove before this one left may take (the host may be slow to answer). */
const STOP_LEFT_MS = 120_000;

/** Starts agents on hosts over `ssh` (the shared connection of each host): one-shot ones and servers. */
export function hostAgentStarter(ssh: Ssh, allowOpen?: AllowOnHost): RemoteAgentStarter {
  return {
    ...remoteAgentStarter(ssh, allowOpen),
    startServer: (place, spec) => startRemoteServer(ssh, place, spec, allowOpen),
    stopRun: (place, runId, pgid) =>
      cancelRun({ ssh, host: place.host }, runId, AbortSignal.timeout(STOP_LEFT_MS), pgid),
  };
}
