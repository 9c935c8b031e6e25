// A command on a host that outlives the ssh connection that started it
// (issue 24). It runs detached, in a session of its own (setsid; inside a
// `systemd-run --user --scope` unit too when the host's user manager answers,
// so logind does not end it with the login), with stdin from /dev/null and
// stdout and stderr in files of a per-run folder on the host:
//
//   <root>/runs/<run id>/out   stdout        err   stderr
//                        pid   its process group (= the session leader's pid)
//                        exit  its exit code, written (atomically) once it ended
//                        boot  the host's boot id when it started
//
// The output is read by byte offset: `follow` streams a file from an offset
// and counts the bytes it was given, so when the link drops (the ssh process
// or the shared connection dies, the host is away for minutes) it reconnects
// on domain/reconnect.ts's schedule (1, 2, 4, 7, 10 s with jitter, then every
// 10 s, with no last try) and goes on from the last byte it has, none lost
// and none twice. `cancel` kills the whole
// process group on the host.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Host } from '../../domain/host.js';
import { reconnectDelayMs } from '../../domain/reconnect.js';
import { shellCommand } from './quote.js';
import { HostError, ROOT_PRELUDE, runScript } from './remote-script.js';
import type { Ssh } from './ssh.js';

export interface RemoteRunner {
  readonly ssh: Ssh;
  readonly host: Host;
}

export type RunStream = 'out' | 'err';

const RUN_ID = /^r-[0-9a-f]{24}$/;

function runIdProblem(runId: string): void {
  if (!RUN_ID.test(runId)) throw new HostError(`'${runId}' is not a run id`);
}

/** A new run's id: random, so two runs never share a folder. */
export function newRunId(): string {
  return `r-${randomBytes(12).toString('hex')}`;
}

/** $1 root, $2 run id; sets `dir`. */
const RUN_DIR = `${ROOT_PRELUDE}dir=$root/runs/$2
`;

/**
 * Prints the host's boot id (Linux; macOS's boot session id elsewhere;
 * nothing when neither is there), kept to 64 letters, digits and '-'. The
 * tests simulate a reboot with GROVE_HOST_BOOT_ID_FILE (set by their sshd's
 * SetEnv), a regular file read instead; whoever could set it (or rewrite a
 * run's boot file) changes only the words a lost run ends with: the boot id
 * is compared, never run, never a path Grove writes or deletes.
 */
const BOOT_ID = `boot_id() {
  f=/proc/sys/kernel/random/boot_id
  if [ -n "\${GROVE_HOST_BOOT_ID_FILE:-}" ] && [ -f "$GROVE_HOST_BOOT_ID_FILE" ]; then f=$GROVE_HOST_BOOT_ID_FILE; fi
  if [ -f "$f" ]; then head -c 64 -- "$f" 2>/dev/null
  else sysctl -n kern.bootsessionuuid 2>/dev/null | head -c 64
  fi | tr -dc '0-9A-Za-z-'
}
`;

/**
 * Starts the run: $3 is the command (one string for sh -c), $4 the folder it
 * starts in ('' for the run folder). The wrapper is the session leader, so
 * its pid is the process group; it writes `exit` through a temporary file,
 * so a reader never sees half of it. The outer shell waits for `pid`.
 */
const START_SCRIPT = `${RUN_DIR}${BOOT_ID}cmd=$3 cwd=\${4:-$dir}
mkdir -p -- "$dir" || exit 1
boot_id > "$dir/boot" 2>/dev/null
wrapper='echo $$ > "$1/pid.tmp" && mv -f "$1/pid.tmp" "$1/pid"
cd -- "$3" || { echo 127 > "$1/exit"; exit 127; }
sh -c "$2" < /dev/null > "$1/out" 2> "$1/err"
echo $? > "$1/exit.tmp" && mv -f "$1/exit.tmp" "$1/exit"'
if command -v systemd-run >/dev/null 2>&1 &&
  systemd-run --user --scope --quiet --collect -- true >/dev/null 2>&1; then
  unit=grove-$2
  echo "$unit" > "$dir/unit"
  systemd-run --user --scope --quiet --collect --unit="$unit" -- \\
    setsid sh -c "$wrapper" grove-run "$dir" "$cmd" "$cwd" < /dev/null > /dev/null 2>&1 &
else
  setsid sh -c "$wrapper" grove-run "$dir" "$cmd" "$cwd" < /dev/null > /dev/null 2>&1 &
fi
i=0
while [ ! -s "$dir/pid" ]; do
  i=$((i + 1))
  if [ $i -gt 300 ]; then echo "the run did not start" >&2; exit 1; fi
  sleep 0.1 2>/dev/null || sleep 1
done
cat -- "$dir/pid"
`;

/** Why a run ended when the host's boot id changed under it (the work is brought back after). */
export function restartedText(hostName: string): string {
  return `${hostName} restarted during the turn (its boot id changed); the agent was stopped by the restart. What it wrote is kept.`;
}

/** What the follow script says on stderr once it reads the file: the link is up. */
const FOLLOWING = 'grove-following';

/**
 * Whether process $pgid is this run's leader (the wrapper, whose command line
 * names the run folder). The pid file is the agent's to rewrite, and a pid is
 * reused after a reboot: neither may point Grove at another process.
 */
const OURS = `ours() {
  if [ -r "/proc/$pgid/cmdline" ]; then
    tr '\\000' ' ' < "/proc/$pgid/cmdline" 2>/dev/null | grep -qF -- "grove-run $dir "
  else
    ps -o args= -p "$pgid" 2>/dev/null | grep -qF -- "grove-run $dir "
  fi
}
`;

/**
 * $5: the run's process group as startRun reported it ('' for the pid
 * file's). Sets pgid, or exits 3 when there is no such run.
 */
const RUN_PGID = `[ -f "$dir/pid" ] || { echo "no such run" >&2; exit 3; }
pgid=\${5:-$(cat -- "$dir/pid")}
case $pgid in ''|*[!0-9]*) echo "bad pid file" >&2; exit 7 ;; esac
${OURS}`;

/**
 * Streams $3 (out or err) from byte offset $4 until the run has ended and
 * every byte is read, after saying FOLLOWING on stderr. GNU tail follows with
 * inotify and stops once the run's leader is gone (--pid), after a last read;
 * elsewhere the file is polled. The run has ended when its leader is gone and
 * its exit file is there (an exit file the agent wrote early is not believed);
 * a leader gone with no exit file is read to the end too, then exits 6 when
 * the host's boot id is not the one the run started under (the host
 * restarted), 5 when it is (the process was killed there), 7 when either is
 * unknown (a run started before Grove kept it, a host with neither boot id,
 * a pid file that is not a number); a file shorter than the offset
 * (rewritten on the host) exits 4.
 */
const FOLLOW_SCRIPT = `${RUN_DIR}${BOOT_ID}file=$dir/$3 from=$(($4 + 1))
${RUN_PGID}[ -e "$file" ] || : >> "$file"
[ "$(wc -c < "$file")" -ge "$4" ] || { echo "the output is shorter than what was read" >&2; exit 4; }
echo ${FOLLOWING} >&2
gone() {
  ours && return 1
  [ -e "$dir/exit" ] && return 0
  was=$(head -c 64 -- "$dir/boot" 2>/dev/null | tr -dc '0-9A-Za-z-') now=$(boot_id)
  if [ -n "$was" ] && [ -n "$now" ]; then
    if [ "$was" != "$now" ]; then lost=6; else lost=5; fi
  else
    lost=7
  fi
  return 0
}
lost=0
# Gone with no exit file: what it wrote is still read to the end, then why.
if gone; then tail -c +"$from" -- "$file"; exit $lost; fi
if tail --version 2>/dev/null | grep -q GNU; then
  tail -c +"$from" -f --pid="$pgid" -- "$file" || exit 1
  gone || exit 1
  exit $lost
fi
off=$4
while :; do
  ended=0
  gone && ended=1
  size=$(wc -c < "$file")
  if [ "$size" -gt "$off" ]; then
    tail -c +$((off + 1)) -- "$file" | head -c $((size - off))
    off=$size
  fi
  [ $ended = 1 ] && exit $lost
  sleep 0.2 2>/dev/null || sleep 1
done
`;

/** Prints the exit code, or nothing while the run goes on (its leader lives: an early exit file is not believed). */
const STATUS_SCRIPT = `${RUN_DIR}${RUN_PGID}ours && exit 0
if [ -s "$dir/exit" ]; then head -c 16 -- "$dir/exit"; fi
`;

/**
 * Ends the run's process group ($3: as startRun reported it; '' for the pid
 * file's): TERM, then KILL after 5 s for what is left, and its systemd scope
 * when it has one. Writes \`exit\` (143) when the
 * wrapper had no time to.
 */
const CANCEL_SCRIPT = `${RUN_DIR}${RUN_PGID}
# A live process of that number that is not this run's leader is someone else's: left alone.
# (A group whose leader is gone keeps its number until its last member ends: still this run's.)
if kill -0 "$pgid" 2>/dev/null && ! ours; then
  echo "process $pgid on the host is not this run's; nothing was stopped" >&2; exit 0
fi
# A member that is not a zombie (those are gone; dash's kill takes no '--').
alive() {
  if command -v ps >/dev/null 2>&1; then
    ps -eo pgid=,stat= 2>/dev/null | awk -v g="$pgid" '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'
  else
    kill -0 "-$pgid" 2>/dev/null
  fi
}
kill -TERM "-$pgid" 2>/dev/null
i=0
while alive && [ $i -lt 50 ]; do
  i=$((i + 1)); sleep 0.1 2>/dev/null || sleep 1
done
alive && kill -KILL "-$pgid" 2>/dev/null
if [ -s "$dir/unit" ]; then systemctl --user kill --signal=KILL -- "$(cat -- "$dir/unit")" >/dev/null 2>&1; fi
[ -e "$dir/exit" ] || { echo 143 > "$dir/exit.tmp" && mv -f "$dir/exit.tmp" "$dir/exit"; }
`;

export interface StartedRun {
  readonly runId: string;
  /** The run's process group on the host. */
  readonly pgid: number;
}

/**
 * Starts `command` (one string for the host's `sh -c`: build it with
 * `shellCommand`; never a secret, which `ps` shows: pass those on stdin or in
 * a file) detached on the host, in `cwd` (absolute) or its run folder.
 */
export async function startRun(
  runner: RemoteRunner,
  command: string,
  options: {
    readonly cwd?: string;
    readonly signal?: AbortSignal;
    /** The run's id, when its folder was made before (to hold an input file): newRunId(). */
    readonly runId?: string;
  } = {},
): Promise<StartedRun> {
  const runId = options.runId ?? newRunId();
  runIdProblem(runId);
  const out = await runScript(
    runner.ssh,
    runner.host,
    'starting a command',
    START_SCRIPT,
    [runner.host.root, runId, command, options.cwd ?? ''],
    { timeoutMs: 60_000, ...(options.signal ? { signal: options.signal } : {}) },
  );
  const pgid = Number(out.trim());
  if (!Number.isInteger(pgid) || pgid <= 1)
    throw new HostError(`the run on ${runner.host.name} did not report its process group`);
  return { runId, pgid };
}

/** The process group argument of the scripts: startRun's, checked ('' for the pid file's). */
function pgidArgument(pgid: number | null | undefined): string {
  if (pgid === null || pgid === undefined) return '';
  if (!Number.isSafeInteger(pgid) || pgid <= 1)
    throw new HostError(`${String(pgid)} is not a process group`);
  return String(pgid);
}

/**
 * The run's exit code, or null while it runs. The exit file is the agent's
 * to write: what is not a number from 0 to 255 counts as a failure (1).
 */
export async function runStatus(
  runner: RemoteRunner,
  runId: string,
  signal?: AbortSignal,
  pgid?: number | null,
): Promise<number | null> {
  runIdProblem(runId);
  const out = await runScript(
    runner.ssh,
    runner.host,
    `run ${runId}`,
    STATUS_SCRIPT,
    [runner.host.root, runId, '', '', pgidArgument(pgid)],
    { timeoutMs: 30_000, ...(signal ? { signal } : {}) },
  );
  const text = out.trim();
  if (text === '') return null;
  const code = /^\d{1,3}$/.test(text) ? Number(text) : 1;
  return code <= 255 ? code : 1;
}

/**
 * Kills the run's whole process group on the host: `pgid` as startRun
 * reported it (the pid file there is the agent's to rewrite). A live process
 * of that number that is not the run's leader is left alone.
 */
export async function cancelRun(
  runner: RemoteRunner,
  runId: string,
  signal?: AbortSignal,
  pgid?: number | null,
): Promise<void> {
  runIdProblem(runId);
  await runScript(
    runner.ssh,
    runner.host,
    `cancelling run ${runId}`,
    CANCEL_SCRIPT,
    [runner.host.root, runId, '', '', pgidArgument(pgid)],
    { timeoutMs: 60_000, ...(signal ? { signal } : {}) },
  );
}

export interface FollowOptions {
  /** The first byte wanted (what the caller already has). */
  readonly offset: number;
  /** The run's process group as startRun reported it (absent: the pid file's). */
  readonly pgid?: number | null;
  readonly stream?: RunStream;
  /** Each piece of output, in order; the offset after it is `offset + bytes so far`. */
  readonly onData: (chunk: Buffer) => void;
  readonly signal?: AbortSignal;
  /**
   * Called when the link dropped, before the wait for try `attempt` (1 for
   * the first after a drop) of `delayMs`.
   */
  readonly onReconnect?: (attempt: number, offset: number, delayMs: number) => void;
  /** Called when the link is back after a drop, as the output goes on from `offset`. */
  readonly onReconnected?: (offset: number) => void;
  /** A number in [0, 1) for each wait's jitter (default Math.random). */
  readonly random?: () => number;
}

export interface FollowEnd {
  /** The offset after the last byte given to onData. */
  readonly offset: number;
  readonly exitCode: number;
}

/** One ssh stream of the file from `offset`; resolves with ssh's exit code (null: killed). */
function streamOnce(
  runner: RemoteRunner,
  runId: string,
  stream: RunStream,
  offset: number,
  pgid: string,
  onData: (chunk: Buffer) => void,
  signal: AbortSignal | undefined,
  onFollowing: () => void,
): Promise<{ code: number | null; stderr: string; following: boolean }> {
  const command = shellCommand([
    'sh',
    '-c',
    FOLLOW_SCRIPT,
    'grove',
    runner.host.root,
    runId,
    stream,
    String(offset),
    pgid,
  ]);
  const [file, ...options] = runner.ssh.command;
  return new Promise((resolve) => {
    const child = spawn(file ?? 'ssh', [...options, '--', runner.host.destination, command], {
      env: runner.ssh.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let following = false;
    child.stdout.on('data', (chunk: Buffer) => onData(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
      if (!following && stderr.includes(`${FOLLOWING}\n`)) {
        following = true;
        stderr = stderr.replace(`${FOLLOWING}\n`, '');
        onFollowing();
      }
    });
    const stop = (): void => {
      child.kill('SIGTERM');
    };
    signal?.addEventListener('abort', stop, { once: true });
    child.once('error', (error) => {
      signal?.removeEventListener('abort', stop);
      resolve({ code: null, stderr: error.message, following });
    });
    // 'close': every byte of stdout has been handed to onData.
    child.once('close', (code) => {
      signal?.removeEventListener('abort', stop);
      resolve({ code, stderr, following });
    });
  });
}

/** Waits `ms`, or less when the signal aborts. */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Streams the run's output from `offset` until the run has ended and every
 * byte is read. A dropped link (ssh killed, the connection gone, the host
 * away for a while) is tried again on domain/reconnect.ts's schedule, from
 * the offset of the last byte received, for as long as it takes: only a host
 * that answers and says there is no such run (a HostError) or the signal
 * (throwing) ends the following early.
 */
export async function followRun(
  runner: RemoteRunner,
  runId: string,
  options: FollowOptions,
): Promise<FollowEnd> {
  runIdProblem(runId);
  if (!Number.isSafeInteger(options.offset) || options.offset < 0)
    throw new HostError(`${String(options.offset)} is not an offset`);
  const { signal } = options;
  const pgid = pgidArgument(options.pgid);
  const random = options.random ?? Math.random;
  let offset = options.offset;
  let failures = 0;
  const onData = (chunk: Buffer): void => {
    offset += chunk.length;
    options.onData(chunk);
  };
  const onFollowing = (): void => {
    // Back after a drop: the tail reads on from the offset.
    if (failures > 0) options.onReconnected?.(offset);
    failures = 0;
  };
  for (;;) {
    if (signal?.aborted) throw new HostError(`following run ${runId} was stopped`);
    const before = offset;
    const ended = await streamOnce(
      runner,
      runId,
      options.stream ?? 'out',
      offset,
      pgid,
      onData,
      signal,
      onFollowing,
    );
    if (signal?.aborted) throw new HostError(`following run ${runId} was stopped`);
    if (ended.code === 3)
      throw new HostError(
        `the agent's run ${runId} is no longer on ${runner.host.name} (its folder is gone: the host was cleaned or rebooted)`,
      );
    if (ended.code === 4)
      throw new HostError(
        `the output of run ${runId} on ${runner.host.name} is shorter than the ${String(offset)} bytes Grove had read of it: it was changed there`,
      );
    if (ended.code === 6) throw new HostError(restartedText(runner.host.name));
    if (ended.code === 5)
      throw new HostError(
        `the agent's process on ${runner.host.name} is gone and left no exit code (something on ${runner.host.name} killed it; the host did not restart: its boot id is the one the run started under)`,
      );
    if (ended.code === 7)
      throw new HostError(
        `the agent's process on ${runner.host.name} is gone and left no exit code (the host was rebooted, or the process was killed there)`,
      );
    if (ended.code === 0) {
      // tail ended: the run is over and everything was read, unless the link dropped just then.
      const exitCode = await runStatus(runner, runId, signal, options.pgid).catch(() => null);
      if (exitCode !== null) return { offset, exitCode };
    }
    // A link that was up (or carried bytes) before it dropped starts the waits again.
    failures = ended.following || offset > before ? 1 : failures + 1;
    const delayMs = reconnectDelayMs(failures, random());
    options.onReconnect?.(failures, offset, delayMs);
    await pause(delayMs, signal);
  }
}
