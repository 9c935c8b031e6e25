// Ending a command-line run with all of its output written.
//
// process.exit() ends the process at once, and whatever a pipe has not taken
// yet is lost: a pipe holds 64 KiB, the rest waits in Node's queue until the
// reader reads (a file and a terminal take every write at once). So every
// exit after output waits here until stdout and stderr have handed their last
// byte to the system. A reader that stops early (`grove ls --json | head`)
// makes the next write fail with EPIPE: that prints nothing and stops nothing
// (a turn or a merge is never cut short by it); the rest of the output is
// dropped and the command exits with 141, as git does (docs/usage/cli.md,
// "Exit codes").

/** The exit code when a reader closed its end before all output was written: 128 + SIGPIPE (13). */
export const EXIT_OUTPUT_CLOSED = 141;

type Output = NodeJS.WriteStream;

const guarded = new WeakSet<Output>();
/** Why output was lost: its reader went away ('closed'), or writing failed otherwise. */
let lost: 'closed' | 'failed' | null = null;
/** Told when a reader closes its end (for a command that writes until then: grove watch). */
const closedListeners = new Set<() => void>();

/** Calls `listener` once a reader closed stdout or stderr; returns how to stop listening. */
export function onOutputClosed(listener: () => void): () => void {
  closedListeners.add(listener);
  return () => closedListeners.delete(listener);
}

function streams(): readonly Output[] {
  return [process.stdout, process.stderr];
}

/**
 * From here on a failed write to stdout or stderr is remembered instead of
 * ending the process with an uncaught EPIPE and a stack trace. Only for
 * command-line runs: the TUI keeps its own handling of a terminal that goes.
 */
export function guardOutput(): void {
  for (const stream of streams()) {
    if (guarded.has(stream)) continue;
    guarded.add(stream);
    stream.on('error', (error: NodeJS.ErrnoException) => {
      const closed = error.code === 'EPIPE' || error.code === 'ECONNRESET';
      if (!closed && lost !== 'failed' && stream === process.stdout && !process.stderr.destroyed)
        process.stderr.write(`grove: could not write the output: ${error.message}\n`);
      if (closed) {
        lost ??= 'closed';
        for (const listener of closedListeners) listener();
      } else lost = 'failed';
    });
  }
}

/** Resolves once every earlier write to `stream` is with the system (or failed). */
function flushed(stream: Output): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', resolve);
    // Writes complete in order: this one's callback runs after all earlier ones.
    stream.write('', () => resolve());
  });
}

/** The code to end with: the command's own, or, when it had none (0), what lost output means. */
export function finalExitCode(code: number): number {
  if (code !== 0 || lost === null) return code;
  return lost === 'closed' ? EXIT_OUTPUT_CLOSED : 1;
}

/** Waits until stdout and stderr are written out, then ends the process with `code` (see finalExitCode). */
export async function exitWhenWritten(code: number): Promise<never> {
  guardOutput();
  await Promise.all(streams().map(flushed));
  // A failed write reports its error on the next tick (a file's at once, a
  // pipe's when the system answers): let it be counted before choosing the code.
  await new Promise((resolve) => setImmediate(resolve));
  process.exit(finalExitCode(code));
}
