// Re-attaching to a long-lived agent on a host (issue 24, item 4): a Codex
// app-server or `gemini --acp` run that a Grove killed mid-turn left there.
// Everything needed to take it over is in its run folder (remote-server.ts):
//
//   in    every byte that Grove sent the process, in order
//   out   everything the process printed, read by byte offset
//
// This Grove reads `in` back (bounded, in pieces that fit one ssh answer, under
// the same lock the appends take, so a command of the dead Grove's that still
// runs there is waited for), streams `out` again from byte 0 (the channel
// rebuilds its protocol state from both: infra/agent/left-run.ts), and writes
// on to the process's stdin after the bytes `in` already holds. Nothing read
// from the host is run or pasted into a command: the run id is checked, and the
// folder goes to the scripts as a quoted word.
import type { HostPlace } from '../../domain/host.js';
import type { RemoteServerAttach, ServerAttachSpec } from '../agent/channel.js';
import { followAgent, type AllowOnHost } from './remote-agent.js';
import type { RemoteRunner } from './remote-run.js';
import { HostError, runScript } from './remote-script.js';
import { serverNetwork, serverProcess } from './remote-server.js';
import type { Ssh } from './ssh.js';

/** How much of a left run's input log is read back: beyond it the run cannot be taken over. */
export const INPUT_LOG_MAX = 64 * 1024 * 1024;

/** One piece of the input log per ssh command, sent as hex (ssh's answer is kept in memory up to 1 MiB). */
const PIECE = 256 * 1024;

const RUN_ID = /^r-[0-9a-f]{24}$/;

/**
 * $1 the run folder, $2 the offset to read from, $3 how many bytes at most.
 * Prints the log's size on the first line, then the bytes in hex (od, so
 * every byte comes back as it is, whatever it is). Exit 3: no such
 * run. The lock is the appends' (remote-server.ts): a batch the dead Grove's
 * ssh was still appending is complete (or not there at all) when this reads.
 */
const READ_SCRIPT = `in=$1/in
[ -f "$in" ] || { echo "no such run" >&2; exit 3; }
if command -v flock >/dev/null 2>&1; then exec 9>> "$1/in.lock" && flock 9 || exit 1; fi
size=$(($(wc -c < "$in")))
echo "$size"
if [ "$2" -lt "$size" ]; then tail -c +$(($2 + 1)) -- "$in" | head -c "$3" | od -An -v -tx1; fi
exit 0
`;

/** The first line of a READ_SCRIPT answer: the log's size; null when it is not a number. */
function sizeLine(out: string): { size: number; rest: string } | null {
  const at = out.indexOf('\n');
  const first = at === -1 ? out : out.slice(0, at);
  if (!/^[0-9]{1,15}$/.test(first.trim())) return null;
  return { size: Number(first.trim()), rest: at === -1 ? '' : out.slice(at + 1) };
}

/** The run's input log: its text and size (no text when it is larger than INPUT_LOG_MAX). */
export async function readInputLog(
  ssh: Ssh,
  place: HostPlace,
  runId: string,
): Promise<{ readonly text: string; readonly size: number; readonly tooLarge: boolean }> {
  const dir = `${place.root}/runs/${runId}`;
  const name = place.host.name;
  const pieces: Buffer[] = [];
  let size = -1;
  let read = 0;
  do {
    const out = await runScript(
      ssh,
      place.host,
      `reading what Grove sent the agent's run ${runId} on ${name}`,
      READ_SCRIPT,
      [dir, String(read), String(PIECE)],
      { timeoutMs: 60_000 },
    ).catch((error: unknown) => {
      if (error instanceof HostError && /\(exit 3\)/.test(error.message))
        throw new HostError(
          `the agent's run ${runId} is no longer on ${name} (its folder is gone: the host was cleaned or rebooted)`,
        );
      throw error;
    });
    const answer = sizeLine(out);
    const hex = answer?.rest.replace(/\s+/g, '') ?? '';
    if (!answer || !/^(?:[0-9a-f]{2})*$/.test(hex))
      throw new HostError(`the input log of run ${runId} on ${name} cannot be read`);
    if (size === -1) size = answer.size;
    // The log only grows by appends; once no Grove writes it, its size stays.
    if (answer.size !== size)
      throw new HostError(`the input log of run ${runId} on ${name} changed while it was read`);
    if (size > INPUT_LOG_MAX) return { text: '', size, tooLarge: true };
    const piece = Buffer.from(hex, 'hex');
    if (piece.length === 0 && read < size)
      throw new HostError(`the input log of run ${runId} on ${name} ended early`);
    pieces.push(piece);
    read += piece.length;
  } while (read < size);
  return { text: Buffer.concat(pieces).toString('utf8'), size, tooLarge: false };
}

/**
 * Takes over the server run `spec.runId` of the place's host: its stdout from
 * byte 0 (followed with reconnection, as a run this Grove started), what the
 * earlier Grove sent it, and a stdin appended after that. A filtered run's
 * network (its listener here and the forward to it, which went with the
 * earlier Grove) is opened again, as for a Claude Code run re-attached; the
 * relay in the sandbox goes on to the new forward.
 */
export async function attachRemoteServer(
  ssh: Ssh,
  place: HostPlace,
  spec: ServerAttachSpec,
  allowOpen: AllowOnHost = () => Promise.resolve(false),
): Promise<RemoteServerAttach> {
  if (!RUN_ID.test(spec.runId)) throw new HostError(`'${spec.runId}' is not a run of Grove's`);
  const runner: RemoteRunner = { ssh, host: place.host };
  const dir = `${place.root}/runs/${spec.runId}`;
  const log = await readInputLog(ssh, place, spec.runId);
  const filter = serverNetwork(ssh, place, spec, allowOpen);
  const network =
    filter.lines === ''
      ? null
      : await filter.connect(
          dir,
          await runScript(
            ssh,
            place.host,
            `opening the network of the agent's run on ${place.host.name} again`,
            `umask 077\n${filter.lines}`,
            [dir],
            { timeoutMs: 60_000 },
          ),
        );
  const tell = { progress: spec.onReconnect, notice: spec.onNotice };
  // No cursor: the channel hands the lines on itself (left-run.ts), with their offsets.
  const proc = followAgent(runner, spec.runId, spec.pgid, dir, tell, undefined);
  return {
    ...serverProcess(runner, dir, proc, network, log.size),
    sent: log.text,
    sentTooLarge: log.tooLarge,
  };
}
