import { probeLimits } from '../../src/infra/agent/confine/limits.js';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { openDatabase } from '../../src/infra/db/database.js';
import { GROVE_BIN, makeWorld, type GroveWorld } from '../helpers/grove-env.js';
import { realCliPath } from '../helpers/real-clis.js';

// `grove doctor` as a person runs it: the built binary, with a PATH, HOME
// and GROVE_HOME made for each test, so each failure is the real thing (no
// git on PATH, an old git, no agent CLI, a damaged database, …).

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));
const SHIPPED = readdirSync(MIGRATIONS).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).length;

const Result = z.object({
  check: z.string(),
  status: z.enum(['ok', 'note', 'warn', 'fail']),
  detail: z.string(),
  fix: z.nullable(z.string()),
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let world: GroveWorld;
/** The only folder on the doctor's PATH; each test links in the tools it wants. */
let tools: string;
let database: string;

beforeEach(() => {
  world = makeWorld();
  tools = join(world.dir, 'tools');
  mkdirSync(tools);
  mkdirSync(world.groveHome, { mode: 0o700 });
  database = join(world.groveHome, 'db', 'grove.db');
});

afterEach(() => {
  world.cleanup();
});

/** Puts the machine's `name` (or a given file) on the doctor's PATH. */
function provide(name: string, target?: string): void {
  const path =
    target ??
    ['/usr/bin', '/bin', '/usr/local/bin'].map((dir) => join(dir, name)).find((p) => existsSync(p));
  if (!path) throw new Error(`${name} is not installed on this machine`);
  symlinkSync(path, join(tools, name));
}

/** Git, bubblewrap (when the machine has it) and a signed-in Claude Code: a healthy set-up. */
function provideHealthy(): Record<string, string> {
  provide('git');
  if (existsSync('/usr/bin/bwrap')) provide('bwrap');
  provide('claude', realCliPath('claude'));
  return { ANTHROPIC_API_KEY: 'sk-doctor-test' };
}

function doctor(args: readonly string[] = [], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [GROVE_BIN, 'doctor', ...args], {
    cwd: world.dir,
    env: { PATH: tools, HOME: world.home, GROVE_HOME: world.groveHome, LANG: 'C.UTF-8', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The text line of one check. */
function line(run: Run, check: string): string {
  const found = run.stdout
    .split('\n')
    .find((l) => new RegExp(`^(ok|note|warn|fail)\\s+${check}\\s`).test(l));
  if (!found) throw new Error(`no ${check} line in:\n${run.stdout}${run.stderr}`);
  return found;
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

async function createDatabase(edit?: (db: ReturnType<typeof openDatabase>) => void): Promise<void> {
  const db = openDatabase(database, MIGRATIONS);
  edit?.(db);
  await db.close();
}

describe('grove doctor', () => {
  it('reports a healthy set-up line by line and exits 0', async () => {
    const env = provideHealthy();

    const run = await doctor([], env);

    expect(run.code).toBe(0);
    expect(line(run, 'node')).toMatch(/^ok\s+node\s+Node\.js v\d+/);
    expect(line(run, 'sqlite')).toMatch(
      /^ok\s+sqlite\s+better-sqlite3 \d+\.\d+\.\d+ loads \(SQLite 3\.\d+/,
    );
    expect(line(run, 'git')).toMatch(/^ok\s+git\s+git \d+\.\d+/);
    expect(line(run, 'claude')).toMatch(
      /^ok\s+claude\s+Claude Code \d+\.\d+\.\d+.*signed in \(ANTHROPIC_API_KEY\)/,
    );
    expect(line(run, 'codex')).toBe(
      'note  codex       Codex (codex) is not installed (not found on PATH). To use it, install it: npm install --global @openai/codex',
    );
    expect(line(run, 'gemini')).toMatch(/^note\s+gemini\s+.*not installed/);
    expect(run.stdout).not.toMatch(/^\w+\s+agents\s/m);
    expect(line(run, 'grove-home')).toMatch(/^ok\s+grove-home\s+.*mode 0700/);
    expect(line(run, 'database')).toContain('does not exist yet');
    // One agent is enough: the two that are not installed are no warnings.
    const warnings = run.stdout.split('\n').filter((l) => l.startsWith('warn ')).length;
    expect(run.stdout).toMatch(
      warnings === 0
        ? /\n\nAll is well\.\n$/
        : new RegExp(`All is well \\(${warnings} warnings?\\)\\.\\n$`),
    );
  });

  it('fails when git is not on PATH, and says how to install it', async () => {
    const env = provideHealthy();
    const noGit = join(world.dir, 'no-git');
    mkdirSync(noGit);
    for (const name of readdirSync(tools).filter((n) => n !== 'git'))
      symlinkSync(join(tools, name), join(noGit, name));

    const run = await doctor([], { ...env, PATH: noGit });

    expect(run.code).toBe(1);
    expect(line(run, 'git')).toMatch(
      /^fail\s+git\s+git is not installed \(not found on PATH\)\. Fix: install git 2\.38 or newer/,
    );
    expect(run.stdout).toMatch(/1 check failed/);
  });

  it('fails on a git older than 2.38', async () => {
    const env = provideHealthy();
    const old = join(world.dir, 'old-git');
    mkdirSync(old);
    writeFileSync(join(old, 'git'), '#!/bin/sh\necho "git version 2.30.0"\n', { mode: 0o755 });

    const run = await doctor([], { ...env, PATH: `${old}:${tools}` });

    expect(run.code).toBe(1);
    expect(line(run, 'git')).toMatch(
      /^fail\s+git\s+git 2\.30\.0 at .* is too old: Grove needs 2\.38 or newer \(for git merge-tree --write-tree\)\. Fix: upgrade git/,
    );
  });

  it('fails once when no agent CLI is installed, naming each and how to install it', async () => {
    provide('git');
    if (existsSync('/usr/bin/bwrap')) provide('bwrap');

    const run = await doctor();

    expect(run.code).toBe(1);
    expect(line(run, 'claude')).toMatch(
      /^note\s+claude\s+Claude Code \(claude\) is not installed.*To use it, install it: npm install --global @anthropic-ai\/claude-code/,
    );
    expect(line(run, 'codex')).toMatch(
      /^note\s+codex\s+.*To use it, install it: npm install --global @openai\/codex/,
    );
    expect(line(run, 'gemini')).toMatch(
      /^note\s+gemini\s+.*To use it, install it: npm install --global @google\/gemini-cli/,
    );
    expect(line(run, 'agents')).toBe(
      'fail  agents      no agent CLI is installed: Grove needs at least one (Claude Code, Codex, Gemini CLI). Fix: install one of them (the lines above say how) and sign in',
    );
    expect(run.stdout.split('\n').filter((l) => l.startsWith('fail '))).toHaveLength(1);
    expect(run.stdout).toMatch(/\n\n1 check failed(, \d+ warnings?)?\.\n$/);
  });

  it('warns about an agent CLI that is not signed in, with how to sign in', async () => {
    provideHealthy();

    const run = await doctor();

    expect(run.code).toBe(0);
    expect(line(run, 'claude')).toMatch(
      /^warn\s+claude\s+Claude Code \d+\.\d+\.\d+ at .*, not signed in\. Fix: set ANTHROPIC_API_KEY or run `claude` once to log in/,
    );
  });

  it('waits for an agent CLI that is slow to start (as Gemini CLI is on a busy machine) instead of calling it broken', async () => {
    provideHealthy();
    const slow = join(world.dir, 'slow-gemini');
    // Longer than a check used to be given (10 s), within what the version probe waits (20 s).
    writeFileSync(slow, '#!/bin/sh\n/bin/sleep 11\necho 0.99.0\n', { mode: 0o755 });
    provide('gemini', slow);

    const run = await doctor([], { GEMINI_API_KEY: 'gm-doctor-test' });

    expect(line(run, 'gemini')).toMatch(/^ok\s+gemini\s+Gemini CLI 0\.99\.0 at /);
  });

  it('says where the GitHub token comes from without printing it', async () => {
    const env = provideHealthy();

    const run = await doctor([], { ...env, GH_TOKEN: 'ghp_doctorSecret123' });

    expect(line(run, 'github')).toMatch(/^ok\s+github\s+a GitHub token comes from \$GH_TOKEN/);
    expect(run.stdout + run.stderr).not.toContain('ghp_doctorSecret123');
  });

  it('warns when there is no GitHub token, with how to get one', async () => {
    const env = provideHealthy();

    const run = await doctor([], env);

    expect(line(run, 'github')).toMatch(
      /^warn\s+github\s+no GitHub token .*publishing pull requests will not work\. Fix: set GITHUB_TOKEN .*gh auth login/,
    );
  });

  it('warns when GROVE_HOME is readable by other users (0755)', async () => {
    const env = provideHealthy();
    chmodSync(world.groveHome, 0o755);

    const run = await doctor([], env);

    expect(run.code).toBe(0);
    expect(line(run, 'grove-home')).toBe(
      `warn  grove-home  ${world.groveHome} is readable by other users (mode 0755, should be 0700): it holds transcripts, diffs and logs. Fix: chmod 700 ${world.groveHome}`,
    );
  });

  it('reports an intact database with its schema version and leaves its folder unchanged', async () => {
    const env = provideHealthy();
    await createDatabase();
    const before = {
      hash: sha256(database),
      files: readdirSync(join(world.groveHome, 'db')).sort(),
    };

    const run = await doctor([], env);

    expect(run.code).toBe(0);
    expect(line(run, 'database')).toMatch(
      new RegExp(`^ok\\s+database\\s+.*quick_check ok, schema version ${SHIPPED} of ${SHIPPED}$`),
    );
    expect({
      hash: sha256(database),
      files: readdirSync(join(world.groveHome, 'db')).sort(),
    }).toEqual(before);
  });

  it('fails on a database file of garbage bytes and leaves it unchanged', async () => {
    const env = provideHealthy();
    mkdirSync(join(world.groveHome, 'db'), { recursive: true });
    writeFileSync(
      database,
      Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 37 + 11) % 256)),
    );
    const before = sha256(database);

    const run = await doctor([], env);

    expect(run.code).toBe(1);
    expect(line(run, 'database')).toMatch(
      /^fail\s+database\s+.*grove\.db is not a SQLite database\. Fix: move it aside/,
    );
    expect(sha256(database)).toBe(before);
  });

  it('fails on a damaged database (valid header, garbage pages) and adds no side files', async () => {
    const env = provideHealthy();
    await createDatabase();
    const bytes = readFileSync(database);
    bytes.fill(0xab, bytes.readUInt16BE(16));
    writeFileSync(database, bytes);

    const run = await doctor([], env);

    expect(run.code).toBe(1);
    expect(line(run, 'database')).toMatch(
      /^fail\s+database\s+.*grove\.db is damaged \(SQLite: .*\)\. Fix: restore it from a backup/,
    );
    expect(readdirSync(join(world.groveHome, 'db'))).toEqual(['grove.db']);
  });

  it('fails on a database written by a newer Grove and leaves it unchanged', async () => {
    const env = provideHealthy();
    await createDatabase((db) =>
      db.sqlite
        .prepare("INSERT INTO grove_migration VALUES (999, 'from_the_future', 'abc', 0)")
        .run(),
    );
    const before = sha256(database);

    const run = await doctor([], env);

    expect(run.code).toBe(1);
    expect(line(run, 'database')).toMatch(
      /^fail\s+database\s+.*was created by a newer Grove \(it records migration 999_from_the_future, unknown to this version\)\. Fix: upgrade Grove/,
    );
    expect(sha256(database)).toBe(before);
    expect(readdirSync(join(world.groveHome, 'db'))).toEqual(['grove.db']);
  });

  it('fails on an empty (0-byte) database file and leaves it unchanged', async () => {
    const env = provideHealthy();
    mkdirSync(join(world.groveHome, 'db'), { recursive: true });
    writeFileSync(database, '');

    const run = await doctor([], env);

    expect(run.code).toBe(1);
    expect(line(run, 'database')).toMatch(
      /^fail\s+database\s+.*grove\.db is empty \(0 bytes\): it holds none of your sessions.*Fix: restore it from a backup, or move it aside/,
    );
    expect(readFileSync(database).length).toBe(0);
    expect(readdirSync(join(world.groveHome, 'db'))).toEqual(['grove.db']);
  });

  it('fails on a database whose applied migration differs from the one Grove ships', async () => {
    const env = provideHealthy();
    await createDatabase((db) =>
      db.sqlite.prepare("UPDATE grove_migration SET checksum = 'edited' WHERE version = 1").run(),
    );
    const before = sha256(database);

    const run = await doctor([], env);

    expect(run.code).toBe(1);
    expect(line(run, 'database')).toMatch(
      /^fail\s+database\s+.*records migration 001_initial with a different checksum than this Grove ships.*Fix: reinstall Grove or move the file aside/,
    );
    expect(sha256(database)).toBe(before);
  });

  it.runIf(process.platform === 'linux')(
    'warns when bubblewrap is not on PATH, with how to install it',
    async () => {
      provide('git');
      provide('claude', realCliPath('claude'));

      const run = await doctor([], { ANTHROPIC_API_KEY: 'sk-doctor-test' });

      expect(run.code).toBe(0);
      expect(line(run, 'sandbox')).toMatch(
        /^warn\s+sandbox\s+bubblewrap \(bwrap\) is not installed: agents cannot be confined to their worktree\. Fix: install bubblewrap: sudo apt install bubblewrap/,
      );
    },
  );

  it.runIf(process.platform === 'linux' && existsSync('/usr/bin/bwrap'))(
    'reports a working bubblewrap with its version',
    async () => {
      const env = provideHealthy();

      const run = await doctor([], env);

      expect(line(run, 'sandbox')).toMatch(
        /^ok\s+sandbox\s+bubblewrap \d+\.\d+(\.\d+)? can confine agents$/,
      );
    },
  );

  it('says how session limits are enforced here, or in words why they are not', async () => {
    const run = await doctor([], provideHealthy());
    const backend = await probeLimits();
    expect(line(run, 'limits')).toMatch(
      backend.kind === 'unavailable'
        ? /^note\s+limits\s+session limits \(capacity\.memoryMax, capacity\.tasksMax, grove run --memory-max\) are unavailable: .+; a session given a limit runs without it and says so$/
        : backend.kind === 'systemd'
          ? /^ok\s+limits\s+session limits are enforced by the user systemd/
          : new RegExp(
              `^ok\\s+limits\\s+session limits are enforced by cgroups Grove makes \\(cgroup v${backend.version}, in `,
            ),
    );
  });

  it("says that copying inside tmux goes to tmux's paste buffer, with no display", async () => {
    const env = provideHealthy();
    provide('tmux');

    const run = await doctor([], { ...env, TMUX: '/tmp/tmux-0/default,1,0' });

    expect(line(run, 'clipboard')).toBe(
      "ok    clipboard   tmux's paste buffer (Grove runs inside tmux, which also passes it to the terminal's clipboard)",
    );
  });

  it('prints a JSON array of {check, status, detail, fix} with --json, and exits 1 when a check fails', async () => {
    provide('git');

    const run = await doctor(['--json']);

    expect(run.code).toBe(1);
    const results = z.array(Result).parse(JSON.parse(run.stdout));
    expect(results.map((r) => r.check)).toEqual([
      'node',
      'sqlite',
      'git',
      'claude',
      'codex',
      'gemini',
      'agents',
      'github',
      'grove-home',
      'disk',
      'database',
      'sandbox',
      'limits',
      'tmux',
      'clipboard',
    ]);
    expect(results.find((r) => r.check === 'claude')).toMatchObject({
      status: 'note',
      fix: 'to use it, install it: npm install --global @anthropic-ai/claude-code',
    });
    expect(results.find((r) => r.check === 'agents')).toMatchObject({ status: 'fail' });
    expect(results.find((r) => r.check === 'node')).toMatchObject({ status: 'ok', fix: null });
  });

  it('needs no repository and creates no database, log or worktree folder', async () => {
    const env = provideHealthy();

    const run = await doctor([], env);

    expect(run.code).toBe(0);
    // Only the code caches (dist/grove.js keeps one for headless commands).
    expect(readdirSync(world.groveHome).filter((name) => name !== 'cache')).toEqual([]);
    expect(statSync(world.groveHome).mode & 0o777).toBe(0o700);
  });
});
