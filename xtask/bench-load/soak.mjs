// The load bench's soak (xtask/bench-load.mjs --only soak): Grove in its real
// pseudo-terminal runs many turns across 50 sessions, driven by keys as a
// person would (open a session, reply, back to the list), with the fake
// `claude` answering each turn at once. Grove's resident memory is read
// every 10 s; the figure is its growth from the first 50 turns to the end,
// and what is given back after a minute idle.
//   GROVE_SOAK_TURNS   turns in all, the 50 first turns included (default 1000)
//   GROVE_SOAK_SNAPSHOTS=1  also sends SIGUSR2 after the first 50 turns and at the
//                      end (start Grove with GROVE_BENCH_NODE_ARGS=--heapsnapshot-signal=SIGUSR2
//                      to have V8 write heap snapshots into the repository folder)
import { rmSync } from 'node:fs';
import { clearInterval, setInterval } from 'node:timers';
import Database from 'better-sqlite3';
import { installFakeClaude } from './fake-claude.mjs';
import { debug, rssMb, sleep, startGrove, stopGrove, waitFor } from './grove.mjs';
import { firstRun, groveEnv, world } from './world.mjs';

const SESSIONS = 50;
/** Replies sent but not yet finished, at most: the queue stays short, as a person's would. */
const IN_FLIGHT = 6;

/** Bytes sent after `from` (the output since a key was pressed). */
const since = (g, from) => g.out.slice(g.out.length - (g.received - from));

/** Presses `key`, then waits until the output after it shows `marker` (a string or a RegExp). */
async function press(g, key, marker, what, ms = 5000, attempts = 4) {
  const shows = (text) => (typeof marker === 'string' ? text.includes(marker) : marker.test(text));
  for (let attempt = 1; ; attempt++) {
    const from = g.received;
    g.child.stdin.write(key);
    try {
      await waitFor(g, () => shows(since(g, from)), ms, what);
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
    }
  }
}

/**
 * Back to the list: Esc (unbound in the list, so pressing it once too often
 * does nothing) until the list's selected row (▶) is painted.
 */
async function back(g) {
  await press(g, '\u001b', '▶', 'the list', 1500);
  // Keeps the Esc from being read as Alt with the key after it.
  await sleep(60);
}

/** Linear least-squares slope of `y` over `x`. */
function slope(points) {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

export async function soakScenario() {
  const turns = Math.max(SESSIONS + 10, Number(process.env.GROVE_SOAK_TURNS ?? 1000));
  const snapshots = process.env.GROVE_SOAK_SNAPSHOTS === '1';
  const w = world();
  installFakeClaude(w);
  let sampler = null;
  try {
    const env = groveEnv(w, { PATH_PREFIX: w.fakeBin });
    await firstRun(w, env);
    const g = await startGrove(w, env);
    const db = new Database(w.dbFile, { readonly: true });
    const finished = () =>
      db
        .prepare(
          "SELECT count(*) AS n FROM session_operation WHERE kind IN ('start_prompt', 'reply') AND status NOT IN ('queued', 'running')",
        )
        .get().n;
    const samples = [];
    const startedAt = Date.now();
    sampler = setInterval(() => {
      samples.push({ at: Date.now() - startedAt, turns: finished(), rss: rssMb(g.pid) });
    }, 10_000);
    let sent = 0;
    const pace = async () => {
      while (sent - finished() >= IN_FLIGHT) await sleep(50);
    };
    // The first turns: one new session each, from the list's composer.
    for (let i = 0; i < SESSIONS; i++) {
      await pace();
      await press(g, 'a', 'Task for the agent', 'the composer', 20_000, 1);
      g.child.stdin.write(`Soak task ${i}: change a file`);
      await sleep(30);
      g.child.stdin.write('\r');
      sent++;
      await sleep(100);
      await back(g);
    }
    while (finished() < SESSIONS) await sleep(100);
    const afterFirst = { turns: finished(), rss: rssMb(g.pid) };
    debug(`first ${SESSIONS} turns done, ${afterFirst.rss.toFixed(1)} MB`);
    if (snapshots) {
      process.kill(g.pid, 'SIGUSR2');
      await sleep(15_000); // V8 writes it with the main thread stopped
    }
    // The rest: walk down the list (back to the top at its end), reply in each session.
    let row = 0;
    while (sent < turns) {
      await pace();
      if (row === SESSIONS) {
        g.child.stdin.write('g');
        row = 0;
      } else if (row > 0) g.child.stdin.write('j');
      row++;
      g.child.stdin.write('\r');
      // Pressed once: a second Enter would send the prompt.
      await press(g, '\r', /Reply|Prompt \(queued/, 'the reply composer', 20_000, 1);
      g.child.stdin.write(`Soak turn ${sent}: change it again`);
      await sleep(30);
      g.child.stdin.write('\r');
      sent++;
      await sleep(50);
      await back(g);
      if (sent % 100 === 0) debug(`${sent} replies sent, ${finished()} turns finished`);
    }
    while (finished() < turns) await sleep(200);
    const atEnd = { turns: finished(), rss: rssMb(g.pid) };
    const soakSeconds = (Date.now() - startedAt) / 1000;
    if (snapshots) process.kill(g.pid, 'SIGUSR2');
    await sleep(60_000);
    const idle = rssMb(g.pid);
    clearInterval(sampler);
    db.close();
    const later = samples.filter((s) => s.turns >= afterFirst.turns);
    const perHundred = slope(later.map((s) => ({ x: s.turns, y: s.rss }))) * 100;
    const ratio = atEnd.rss / afterFirst.rss;
    console.log(
      `soak, ${atEnd.turns} turns across ${SESSIONS} sessions in ${soakSeconds.toFixed(0)} s (fake claude, keys through the pty):`,
    );
    console.log(
      `  RSS after the first ${afterFirst.turns} turns ${afterFirst.rss.toFixed(1)} MB, at the end ${atEnd.rss.toFixed(1)} MB (×${ratio.toFixed(2)}; goal ≤ ×1.10: ${ratio <= 1.1 ? 'ok' : 'MISSED'}), slope ${perHundred.toFixed(2)} MB per 100 turns`,
    );
    console.log(
      `  after a minute idle ${idle.toFixed(1)} MB (${idle <= atEnd.rss ? 'given back' : 'grew'}: ${(atEnd.rss - idle).toFixed(1)} MB)`,
    );
    console.log(
      `  samples (s, turns, MB): ${samples.map((s) => `${(s.at / 1000).toFixed(0)}/${s.turns}/${s.rss.toFixed(0)}`).join(' ')}`,
    );
    await stopGrove(g);
  } finally {
    if (sampler) clearInterval(sampler);
    rmSync(w.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
