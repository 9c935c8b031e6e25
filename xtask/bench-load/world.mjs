// The load bench's world (xtask/bench-load.mjs): a temp repository and home,
// Grove's environment, and sessions and transcripts seeded into its database.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { COLUMNS, REAL_CLI_BIN, ROWS, debug, startGrove, stopGrove } from './grove.mjs';

export function world() {
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

export function groveEnv(w, extra = {}) {
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

export function seedSessions(
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

/** A global setting in the database (after the first start made it). */
export function setSetting(w, name, value) {
  const db = new Database(w.dbFile);
  db.prepare('INSERT OR REPLACE INTO setting (name, value) VALUES (?, ?)').run(name, value);
  db.close();
}

export function seedTranscript(w, sessionId, entries, linesPerEntry) {
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

export async function firstRun(w, env) {
  // The first start creates the database and registers the project.
  debug('first start');
  const g = await startGrove(w, env);
  debug('first frame');
  await stopGrove(g);
  debug('stopped');
}
