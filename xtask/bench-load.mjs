// Grove under load (issue 16 §1), not tests: each figure is printed with its
// goal. Grove runs in a real pseudo-terminal (`script`) with its real agent
// launcher (sandbox, watchdog) and channel; the agent is a fake `claude` on
// PATH that speaks Claude Code's stream-json (the real CLI is too heavy to
// run twenty at once on a shared 2-core machine: its start-up CPU would be
// the figure, not Grove's).
//   node xtask/bench-load.mjs [--only idle,streaming,scroll,turn]
// Scenarios:
//   idle       20 sessions in the database, nothing running: steady CPU, wake-ups.
//   streaming  20 sessions streaming at once (a tool use every 100 ms each,
//              30 more sessions in the list): key-to-frame p50/p99, Grove's
//              CPU share, RSS with 50 sessions.
//   scroll     key-to-frame of a one-line scroll in a 50-line and a 50,000-line transcript.
//   turn       Grove's own cost per turn on a 10,000-file repository (an agent
//              that answers at once) and the agent processes one turn starts.
import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'dist', 'grove.js');
const REAL_CLI_BIN = join(ROOT, 'test', 'fixtures', 'real-clis', 'node_modules', '.bin');
const COLUMNS = 120;
const ROWS = 40;
const HZ = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
const FRAME_END = '\u001b[?2026l';

const debug = (text) =>
  process.env.GROVE_BENCH_VERBOSE &&
  appendFileSync('/dev/stderr', `  [${new Date().toISOString().slice(11, 23)}] ${text}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const verdict = (ok) => (ok ? 'ok' : 'MISSED');
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
};

// ---------------------------------------------------------------- the world

function world() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-bench-load-')));
  const home = join(dir, 'home');
  const repo = join(dir, 'repo');
  const fakeBin = join(dir, 'fake-bin');
  for (const d of [home, repo, fakeBin, join(home, '.claude', 'debug')])
    mkdirSync(d, { recursive: true });
  writeFileSync(
    join(home, '.gitconfig'),
    '[user]\n\tname = Bench\n\temail = bench@grove.invalid\n[init]\n\tdefaultBranch = main\n',
  );
  const git = (...args) =>
    execFileSync('git', args, {
      cwd: repo,
      env: { ...process.env, HOME: home },
      maxBuffer: 64 << 20,
    });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
  return {
    dir,
    home,
    repo,
    fakeBin,
    groveHome: join(dir, 'grove-home'),
    git,
    dbFile: join(dir, 'grove-home', 'db', 'grove.db'),
  };
}

function groveEnv(w, extra = {}) {
  return {
    PATH: `${extra.PATH_PREFIX ?? REAL_CLI_BIN}:${process.env.PATH}`,
    HOME: w.home,
    GROVE_HOME: w.groveHome,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    COLUMNS: String(COLUMNS),
    LINES: String(ROWS),
    ANTHROPIC_BASE_URL: extra.url ?? 'http://127.0.0.1:9',
    ANTHROPIC_API_KEY: 'sk-bench',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    DISABLE_AUTOUPDATER: '1',
  };
}

/** Every Grove started, so a failed scenario leaves none running. */
const running = new Set();

function killAll() {
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
function startGrove(w, env, marker = 'Sessions') {
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

async function waitFor(g, test, ms = 20_000, what = 'output') {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (test(g.out)) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}; got: ${JSON.stringify(g.out.slice(-600))}`);
}

async function stopGrove(g) {
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

function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** Context switches of the main thread: each wake-up of the event loop is one. */
function wakeups(pid) {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return (
    Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]) +
    Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)[1])
  );
}

/** CPU of one process over a window, in % of one core. */
async function cpuOver(pid, ms) {
  const before = cpuTicks(pid);
  const started = Date.now();
  await sleep(ms);
  return ((cpuTicks(pid) - before) / HZ / ((Date.now() - started) / 1000)) * 100;
}

/**
 * Key to frame: `key` is written, and the time runs until the output holds
 * `marker` (the key's own effect, not a spinner frame) and a frame end.
 */
async function keyToFrame(g, key, marker) {
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
async function helpLatencies(g, count, gapMs) {
  const times = [];
  for (let i = 0; i < count; i++) {
    times.push(await keyToFrame(g, '?', 'Start a new agent session'));
    await keyToFrame(g, '\u001b', 'claude/sonnet');
    await sleep(gapMs);
  }
  return times;
}

function seedSessions(
  w,
  count,
  { prefix = 'seed', statuses = ['Review', 'Question', 'Review', 'Done'], branches = false } = {},
) {
  const db = new Database(w.dbFile);
  const project = db.prepare('SELECT id FROM project LIMIT 1').get();
  const insert =
    db.prepare(`INSERT INTO session (id, project_id, title, status, base_branch, branch, worktree_path, agent, model, reasoning_level, prompt, size, added_lines, deleted_lines, created_at, updated_at, active_seconds)
    VALUES (?, ?, ?, ?, 'main', ?, ?, 'claude', 'sonnet', 'high', 'p', 'S', 3, 1, ?, ?, 0)`);
  const now = Date.now();
  const ids = [];
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const id = `${prefix}-${String(i).padStart(6, '0')}-0000-0000-000000000000`;
      insert.run(
        id,
        project.id,
        `Seeded session ${prefix} ${i}`,
        statuses[i % statuses.length],
        `grove/${prefix}${i}`,
        join(w.dir, 'wt', `${prefix}${i}`),
        now - i * 1000,
        now - i * 1000,
      );
      ids.push(id);
    }
  })();
  db.close();
  if (branches) for (let i = 0; i < count; i++) w.git('branch', `grove/${prefix}${i}`, 'main');
  return ids;
}

function seedTranscript(w, sessionId, entries, linesPerEntry) {
  const db = new Database(w.dbFile);
  const insert = db.prepare(
    'INSERT INTO session_message (session_id, position, kind, content, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (let e = 0; e < entries; e++) {
      const kind = e % 2 === 0 ? 'user_prompt' : 'assistant_answer';
      const content = Array.from(
        { length: linesPerEntry - 1 },
        (_, l) => `- entry ${e} line ${l}: some words of an answer`,
      ).join('\n');
      insert.run(sessionId, e, kind, content, Date.now());
    }
  })();
  db.close();
}

async function firstRun(w, env) {
  // The first start creates the database and registers the project.
  debug('first start');
  const g = await startGrove(w, env);
  debug('first frame');
  await stopGrove(g);
  debug('stopped');
}

// ------------------------------------------------------------ the fake agent

/**
 * A fake `claude` (Node, stream-json on stdout like `claude -p`) that records
 * each start (kind and times) in its runtime folder, writable in the sandbox.
 * Title, commit-message and review prompts answer at once; a prompt with
 * `Stream task` streams a tool use every STREAM_EVERY_MS for STREAM_EVENTS
 * events (each writes a file), then answers; any other prompt changes a file
 * and answers at once.
 */
const STREAM_EVENTS = 300;
const STREAM_EVERY_MS = 100;
function installFakeClaude(w) {
  // In one of Claude Code's runtime folders: the agent's sandbox keeps ~/.claude itself read-only.
  const log = join(w.home, '.claude', 'debug', 'bench-calls.log');
  const script = `#!${process.execPath}
const { appendFileSync, mkdirSync, writeFileSync } = require('node:fs');
const start = Date.now();
if (process.argv.includes('--version')) {
  process.stdout.write('2.1.330 (Claude Code)\\n');
  process.exit(0);
}
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const kind = input.includes('Write a title for a coding task') ? 'title' : input.includes('Write the git commit message') ? 'commit' : input.includes('You are reviewing the work of a coding agent') ? 'review' : input.includes('Stream task') ? 'stream' : 'turn';
  const id = '00000000-0000-4000-8000-00000000beef';
  const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
  const finish = () => {
    out({ type: 'result', subtype: 'success', is_error: false, result: 'done', structured_output: { answer: kind === 'title' ? 'Bench session' : 'Bench change', questions: [], summary: null }, session_id: id, usage: { input_tokens: 10, output_tokens: 5 } });
    appendFileSync(${JSON.stringify(log)}, kind + ' ' + start + ' ' + Date.now() + '\\n');
  };
  out({ type: 'system', subtype: 'init', session_id: id });
  if (kind === 'turn') writeFileSync('bench-change.txt', 'change ' + start + '\\n');
  if (kind !== 'stream') return finish();
  let n = 0;
  const dir = 'stream-' + process.pid;
  mkdirSync(dir, { recursive: true });
  const timer = setInterval(() => {
    const path = process.cwd() + '/' + dir + '/f' + n + '.txt';
    writeFileSync(path, 'file ' + n + '\\n');
    out({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 'toolu_' + n, name: 'Write', input: { file_path: path, content: 'x' } }] }, session_id: id });
    if (++n >= ${STREAM_EVENTS}) {
      clearInterval(timer);
      finish();
    }
  }, ${STREAM_EVERY_MS});
});
`;
  const file = join(w.fakeBin, 'claude');
  writeFileSync(file, script);
  chmodSync(file, 0o755);
  return log;
}

// --------------------------------------------------------------- scenarios

async function idleScenario() {
  const w = world();
  try {
    const env = groveEnv(w);
    await firstRun(w, env);
    seedSessions(w, 20, { branches: true });
    const g = await startGrove(w, env);
    // After start-up work and V8's one-off memory-reducing GC (about 8 s in).
    await sleep(12_000);
    const wokeBefore = wakeups(g.pid);
    const framesBefore = g.frames;
    const cpu = await cpuOver(g.pid, 10_000);
    const woke = (wakeups(g.pid) - wokeBefore) / 10;
    console.log(
      `idle with 20 sessions: ${cpu.toFixed(2)} % CPU over 12-22 s after start (goal ≤ 0.3 %: ${verdict(cpu <= 0.3)}); main thread woke ${woke.toFixed(1)} times a second, ${g.frames - framesBefore} frames painted`,
    );
    await stopGrove(g);
  } finally {
    rmSync(w.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

async function streamingScenario() {
  const w = world();
  const SESSIONS = 20;
  installFakeClaude(w);
  try {
    const env = groveEnv(w, { PATH_PREFIX: w.fakeBin });
    await firstRun(w, env);
    seedSessions(w, 30);
    const g = await startGrove(w, env);
    const createdAt = Date.now();
    for (let i = 0; i < SESSIONS; i++) {
      const from = g.received;
      g.child.stdin.write('a');
      await waitFor(
        g,
        (out) => out.slice(out.length - (g.received - from)).includes('Task for the agent'),
        30_000,
        'the composer',
      );
      debug(`composer ${i} open`);
      g.child.stdin.write(`Stream task ${i}: write the files`);
      await sleep(30);
      g.child.stdin.write('\r');
      await sleep(150);
      // Back to the list (its rows are painted again) once the new session opened.
      for (let attempt = 0; ; attempt++) {
        const at = g.received;
        g.child.stdin.write('\u001b');
        try {
          await waitFor(
            g,
            (out) => out.slice(out.length - (g.received - at)).includes('Seeded session'),
            1500,
            'the list',
          );
          break;
        } catch (error) {
          if (attempt >= 4) throw error;
        }
      }
    }
    const db = new Database(w.dbFile, { readonly: true });
    const working = () =>
      db.prepare("SELECT count(*) AS n FROM session WHERE status = 'InProgress'").get().n;
    const until = Date.now() + 30_000;
    while (working() < SESSIONS * 0.75 && Date.now() < until) await sleep(100);
    const atStart = working();
    const cpuBefore = cpuTicks(g.pid);
    const windowStart = Date.now();
    let rss = rssMb(g.pid);
    const latencies = [];
    // 200 presses: enough for a p99 that is not simply the worst one.
    for (let i = 0; i < 200; i++) {
      latencies.push(...(await helpLatencies(g, 1, 40)));
      rss = Math.max(rss, rssMb(g.pid));
    }
    const seconds = (Date.now() - windowStart) / 1000;
    const cpu = ((cpuTicks(g.pid) - cpuBefore) / HZ / seconds) * 100;
    const atEnd = working();
    const total = db.prepare('SELECT count(*) AS n FROM session').get().n;
    db.close();
    const p50 = quantile(latencies, 0.5);
    const p99 = quantile(latencies, 0.99);
    console.log(
      `streaming, ${SESSIONS} sessions at once (${atStart} working at the start of the ${seconds.toFixed(1)} s window, ${atEnd} at its end; sessions created in ${((windowStart - createdAt) / 1000).toFixed(1)} s):`,
    );
    console.log(
      `  key to frame (help overlay, ${latencies.length} presses): p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (goal p99 ≤ 20 ms: ${verdict(p99 <= 20)})`,
    );
    console.log(
      `  Grove's CPU: ${cpu.toFixed(1)} % of one core over the window (the agents' processes not counted)`,
    );
    console.log(
      `  resident memory with ${total} sessions (${SESSIONS} live): ${rss.toFixed(1)} MB peak (goal ≤ 120 MB: ${verdict(rss <= 120)})`,
    );
    await stopGrove(g);
  } finally {
    rmSync(w.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

async function scrollScenario() {
  const w = world();
  try {
    const env = groveEnv(w);
    await firstRun(w, env);
    const results = [];
    for (const [label, entries, perEntry] of [
      ['50-line', 5, 10],
      ['50,000-line', 5_000, 10],
    ]) {
      const db = new Database(w.dbFile);
      db.prepare('DELETE FROM session').run();
      db.close();
      const [id] = seedSessions(w, 1, { prefix: `scroll${entries}` });
      seedTranscript(w, id, entries, perEntry);
      const g = await startGrove(w, env);
      g.child.stdin.write('\r');
      await waitFor(
        g,
        (out) =>
          out.includes(`entry ${entries - 1} line 8`) &&
          out.includes(FRAME_END, out.lastIndexOf(`entry ${entries - 1} line 8`)),
        20_000,
        'the transcript',
      );
      await sleep(300);
      const times = [];
      // Up and down one line: a 50-line transcript scrolls only within what exists.
      for (let i = 0; i < 40; i++) {
        times.push(await keyToFrame(g, 'k', FRAME_END));
        times.push(await keyToFrame(g, 'j', FRAME_END));
      }
      results.push([label, quantile(times, 0.5), quantile(times, 0.99)]);
      await stopGrove(g);
    }
    for (const [label, p50, p99] of results)
      console.log(
        `transcript scroll, ${label} transcript (one line, 80 presses): key to frame p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
      );
    const ratio = results[1][1] / results[0][1];
    console.log(
      `  50,000-line vs 50-line median: ×${ratio.toFixed(2)} (goal: the same frame time, ≤ ×1.5: ${verdict(ratio <= 1.5)})`,
    );
  } finally {
    rmSync(w.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

async function turnScenario() {
  const w = world();
  try {
    // 10,000 files in 100 folders, one commit.
    for (let d = 0; d < 100; d++) {
      const folder = join(w.repo, 'src', `m${d}`);
      mkdirSync(folder, { recursive: true });
      for (let f = 0; f < 100; f++)
        writeFileSync(join(folder, `f${f}.ts`), `export const v${f} = ${d * 100 + f};\n`);
    }
    w.git('add', '-A');
    w.git('commit', '-q', '-m', '10,000 files');
    const calls = installFakeClaude(w);
    const env = groveEnv(w, { PATH_PREFIX: w.fakeBin });
    // GROVE_BENCH_GIT_TRACE=FILE: git's own timings of each command (trace2 perf format).
    if (process.env.GROVE_BENCH_GIT_TRACE) env.GIT_TRACE2_PERF = process.env.GROVE_BENCH_GIT_TRACE;
    const run = (...args) =>
      execFileSync(process.execPath, [BIN, ...args], {
        cwd: w.repo,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
      });
    const costs = [];
    const kinds = [];
    let sessionId = null;
    for (let turn = 0; turn < 3; turn++) {
      if (existsSync(calls)) rmSync(calls);
      const out =
        turn === 0
          ? run('run', '--output', 'json', 'Bench turn: change a file')
          : run('reply', sessionId, '--output', 'json', `Bench turn ${turn}: change it again`);
      sessionId ??= JSON.parse(out).sessionId;
      const log = readFileSync(join(w.groveHome, 'logs', 'grove.log'), 'utf8');
      const lines = [...log.matchAll(/Grove's own ([\d.]+) ms/g)];
      costs.push(Number(lines.at(-1)?.[1] ?? NaN));
      // Title generation runs beside the turn; a short-lived `grove run` waits for it.
      kinds.push(
        existsSync(calls)
          ? readFileSync(calls, 'utf8')
              .trim()
              .split('\n')
              .map((l) => l.split(' ')[0])
          : [],
      );
    }
    console.log(
      `Grove's own cost per turn, 10,000-file repository (transcript, commit, diff stats, database; agent excluded): first ${costs[0].toFixed(0)} ms, follow-ups ${costs
        .slice(1)
        .map((c) => c.toFixed(0))
        .join(' and ')} ms (goal ≤ 300 ms: ${verdict(Math.max(...costs) <= 300)})`,
    );
    const describe = (list) =>
      `${list.length} (${Object.entries(list.reduce((m, k) => ({ ...m, [k]: (m[k] ?? 0) + 1 }), {}))
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')})`;
    console.log(
      `agent processes per turn, Claude Code (a process per prompt): first turn ${describe(kinds[0])}, follow-up ${describe(kinds[1])}; headless, so without the focused review the TUI adds (one more process)`,
    );
    console.log(
      "  Codex asks the commit message on the session's live app-server (an ephemeral thread; test/integration/agents-side-turn.test.ts), so its turns start no process for it",
    );
  } finally {
    rmSync(w.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

const SCENARIOS = {
  idle: idleScenario,
  streaming: streamingScenario,
  scroll: scrollScenario,
  turn: turnScenario,
};
export const LOAD_SCENARIOS = Object.keys(SCENARIOS);

/** Runs the load scenarios (all, or the named ones) one after the other. */
export async function runLoadBench(only = Object.keys(SCENARIOS)) {
  if (!existsSync(join(REAL_CLI_BIN, 'claude'))) {
    console.log(
      'load bench: the pinned agent CLIs are missing (node xtask/real-clis.mjs installs them); the streaming scenario is skipped',
    );
    only = only.filter((name) => name !== 'streaming');
  }
  for (const name of only) {
    const started = Date.now();
    try {
      await SCENARIOS[name]();
    } catch (error) {
      console.log(
        `load bench: ${name} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      process.exitCode = 1;
    } finally {
      killAll();
    }
    if (process.env.GROVE_BENCH_VERBOSE)
      appendFileSync('/dev/stderr', `(${name}: ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
}

if (import.meta.main) {
  const onlyArg = process.argv.indexOf('--only');
  await runLoadBench(onlyArg > 0 ? process.argv[onlyArg + 1].split(',') : undefined);
}
