// Grove in a real pseudo-terminal for the load bench (xtask/bench-load.mjs):
// starting and stopping it, and what is measured of it (CPU, RSS, wake-ups,
// key to frame).
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'dist', 'grove.js');
export const REAL_CLI_BIN = join(ROOT, 'test', 'fixtures', 'real-clis', 'node_modules', '.bin');
export const COLUMNS = 120;
export const ROWS = 40;
export const HZ = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
export const FRAME_END = '\u001b[?2026l';

export const debug = (text) =>
  process.env.GROVE_BENCH_VERBOSE &&
  appendFileSync('/dev/stderr', `  [${new Date().toISOString().slice(11, 23)}] ${text}\n`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Every Grove started, so a failed scenario leaves none running. */
const running = new Set();

export function killAll() {
  for (const g of running) {
    try {
      if (g.pid) process.kill(g.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    g.child.kill('SIGKILL');
  }
  running.clear();
}

/** Grove in a real pty; resolves at its first full frame. `frames` counts painted frames, `out` keeps the output. */
export function startGrove(w, env, marker = 'Sessions') {
  return new Promise((resolvePromise, reject) => {
    // GROVE_BENCH_NODE_ARGS: extra Node flags for Grove (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
    const command = `stty cols ${COLUMNS} rows ${ROWS}; exec ${process.execPath} ${process.env.GROVE_BENCH_NODE_ARGS ?? ''} ${BIN}`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: w.repo,
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const g = { child, out: '', received: 0, frames: 0, pid: 0 };
    running.add(g);
    child.on('exit', () => running.delete(g));
    let done = false;
    const timer = setTimeout(
      () =>
        !done &&
        reject(new Error(`no frame within 20 s; got: ${JSON.stringify(g.out.slice(-400))}`)),
      20_000,
    );
    child.stdout.on('data', (chunk) => {
      const text = chunk.toString('utf8');
      g.out = (g.out + text).slice(-200_000);
      g.received += text.length;
      g.frames += text.split(FRAME_END).length - 1;
      if (!done && g.out.includes(marker) && g.out.includes(FRAME_END)) {
        done = true;
        clearTimeout(timer);
        g.pid = Number(
          execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
            .trim()
            .split('\n')[0],
        );
        resolvePromise(g);
      }
    });
    child.on('error', reject);
  });
}

export async function waitFor(g, test, ms = 20_000, what = 'output') {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (test(g.out)) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}; got: ${JSON.stringify(g.out.slice(-600))}`);
}

export async function stopGrove(g) {
  g.child.stdin.write('q');
  await sleep(150);
  g.child.stdin.write('y');
  await new Promise((resolveExit) => {
    const t = setTimeout(() => {
      try {
        process.kill(g.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      g.child.kill('SIGKILL');
      resolveExit();
    }, 5000);
    g.child.on('exit', () => {
      clearTimeout(t);
      resolveExit();
    });
  });
}

export function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

export function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** Context switches of the main thread: each wake-up of the event loop is one. */
export function wakeups(pid) {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return (
    Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]) +
    Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)[1])
  );
}

/**
 * Read system calls a process made so far (/proc/PID/io syscr): the resource
 * sampler alone would make one per running process every second.
 */
export function readCalls(pid) {
  return Number(/^syscr:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
}

/** CPU of one process over a window, in % of one core. */
export async function cpuOver(pid, ms) {
  const before = cpuTicks(pid);
  const started = Date.now();
  await sleep(ms);
  return ((cpuTicks(pid) - before) / HZ / ((Date.now() - started) / 1000)) * 100;
}

/**
 * Key to frame: `key` is written, and the time runs until the output holds
 * `marker` (the key's own effect, not a spinner frame) and a frame end.
 */
export async function keyToFrame(g, key, marker) {
  const from = g.received;
  const pressed = process.hrtime.bigint();
  g.child.stdin.write(key);
  for (;;) {
    const tail = g.out.slice(Math.max(0, g.out.length - (g.received - from)));
    const at = tail.indexOf(marker);
    if (at >= 0 && tail.indexOf(FRAME_END, at) >= 0) break;
    if (Number(process.hrtime.bigint() - pressed) > 5e9)
      throw new Error(`no frame with ${JSON.stringify(marker)} after ${JSON.stringify(key)}`);
    await new Promise((r) => setImmediate(r));
  }
  return Number(process.hrtime.bigint() - pressed) / 1e6;
}

/** Opens and closes the help overlay `count` times; returns the open latencies. */
export async function helpLatencies(g, count, gapMs) {
  const times = [];
  for (let i = 0; i < count; i++) {
    times.push(await keyToFrame(g, '?', 'Start a new agent session'));
    await keyToFrame(g, '\u001b', 'claude/sonnet');
    await sleep(gapMs);
  }
  return times;
}
