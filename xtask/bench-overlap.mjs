// Overlap detection with 50 live sessions (issue 15), not a test: a real
// repository with 50 session branches, some changing the same files (a few of
// them conflicting), and Grove's OverlapDetector (bundled from src/ with
// esbuild) run as the git status poller runs it: a first cycle, a cycle where
// nothing moved, and a cycle after one branch moved. Each figure is printed
// with its goal.
//   node xtask/bench-overlap.mjs           (or: npm run bench -- --only overlap)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
const SESSIONS = 50;
const FILES = 400;
const ROUNDS = 5;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function loadDetector(dir) {
  const out = join(dir, 'overlap-bench.mjs');
  await build({
    stdin: {
      contents:
        "export { OverlapDetector } from './src/app/services/overlap.ts';\nexport { createGitClient } from './src/infra/git/git-client.ts';\n",
      resolveDir: ROOT,
      loader: 'ts',
    },
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'warning',
    // Bundled CommonJS (simple-git's helpers) requires Node built-ins.
    banner: {
      js: "import { createRequire as groveBenchRequire } from 'node:module'; const require = groveBenchRequire(import.meta.url);",
    },
  });
  return import(pathToFileURL(out).href);
}

/**
 * A repository with FILES files of 20 lines on main and SESSIONS branches of
 * one commit each. Session i changes three files: one of its own, one it
 * shares with the next five sessions (i / 5), and one spread out ((i * 7) % FILES);
 * sessions sharing a file edit the same line when their numbers are close, so
 * some pairs conflict and most only overlap.
 */
function makeRepo(dir) {
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
    GIT_CONFIG_NOSYSTEM: '1',
    HOME: dir,
  };
  const git = (...args) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' }).trim();
  const lines = (file) => Array.from({ length: 20 }, (_, l) => `file ${file} line ${l}`);
  git('init', '-q', '-b', 'main');
  for (let f = 0; f < FILES; f++)
    writeFileSync(join(repo, `f${f}.txt`), `${lines(f).join('\n')}\n`);
  git('add', '-A');
  git('commit', '-q', '-m', 'main');
  const edit = (file, line, text) => {
    const content = lines(file);
    content[line] = text;
    writeFileSync(join(repo, `f${file}.txt`), `${content.join('\n')}\n`);
  };
  const sessions = [];
  for (let i = 0; i < SESSIONS; i++) {
    const branch = `grove/s${i}`;
    git('checkout', '-q', '-b', branch, 'main');
    edit(FILES - 1 - i, 0, `own edit of session ${i}`);
    edit(Math.floor(i / 5), i % 2 === 0 ? 3 : 3 + (i % 5) * 3, `shared edit of session ${i}`);
    edit((i * 7) % (FILES - SESSIONS), 10, `spread edit of session ${i}`);
    git('commit', '-q', '-am', `session ${i}`);
    sessions.push({ id: `session-${String(i).padStart(2, '0')}`, branch, baseBranch: 'main' });
  }
  git('checkout', '-q', 'main');
  return { repo, git, sessions, edit };
}

export async function overlapBench() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-bench-overlap-')));
  try {
    const { OverlapDetector, createGitClient } = await loadDetector(dir);
    const world = makeRepo(dir);
    const git = createGitClient({ ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' });
    const heads = () => git.branchHeads(world.repo);
    // The poller reads the branch tips for its own probes already: only the detection is timed.
    const timed = async (detector) => {
      const tips = await heads();
      const started = performance.now();
      const result = await detector.detect(world.repo, world.sessions, tips);
      return { ms: performance.now() - started, ...result };
    };
    const cold = [];
    const quiet = [];
    const moved = [];
    let last;
    for (let round = 0; round < ROUNDS; round++) {
      const detector = new OverlapDetector(git);
      cold.push((last = await timed(detector)));
      quiet.push(await timed(detector));
      // One session's agent finishes a turn: its branch moves.
      const session = world.sessions[round * 7];
      world.git('checkout', '-q', session.branch);
      world.edit(FILES - 1 - round * 7, 1, `a later turn ${round}`);
      world.git('commit', '-q', '-am', 'later turn');
      world.git('checkout', '-q', 'main');
      moved.push(await timed(detector));
    }
    const pairs = Object.values(last.overlaps).reduce((n, list) => n + list.length, 0) / 2;
    const conflicting =
      Object.values(last.overlaps).reduce(
        (n, list) => n + list.filter((o) => o.conflicts.length > 0).length,
        0,
      ) / 2;
    const flagged = Object.keys(last.overlaps).length;
    const [c, q, m] = [
      median(cold.map((r) => r.ms)),
      median(quiet.map((r) => r.ms)),
      median(moved.map((r) => r.ms)),
    ];
    console.log(
      `overlap detection with ${SESSIONS} sessions (${flagged} flagged; ${pairs} overlapping pairs, ${conflicting} conflicting, of ${(SESSIONS * (SESSIONS - 1)) / 2}): first cycle median ${c.toFixed(0)} ms (${cold[0].gitCalls} git commands), nothing moved ${q.toFixed(2)} ms (${quiet[0].gitCalls} git commands), one branch moved ${m.toFixed(0)} ms (${moved[0].gitCalls} git commands); ${ROUNDS} rounds`,
    );
    const verdict = (ok) => (ok ? 'ok' : 'MISSED');
    console.log(
      `targets: first cycle (once per start, in the background) < 2000 ms: ${verdict(c < 2000)}; a cycle where nothing moved runs no git command and takes < 5 ms: ${verdict(quiet.every((r) => r.gitCalls === 0) && q < 5)}; one moved branch re-probes only its session and its pairs (2 git commands), < 250 ms: ${verdict(moved.every((r) => r.gitCalls <= 2) && m < 250)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await overlapBench();
