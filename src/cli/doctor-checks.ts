// The checks `grove doctor` runs on the tools Grove depends on: Node and
// its native module, git, the agent CLIs, the GitHub token, the sandbox
// engine, tmux and the clipboard. Each one says what it found and, when
// something is off, how to fix it. None of them spends tokens or prints a
// secret.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AcpAgentsConfig } from '../domain/acp-agents.js';
import {
  PROVIDERS,
  type BuiltinProviderId,
  type BuiltinProviderInfo,
} from '../domain/providers.js';
import { which } from '../infra/agent/detect.js';
import { ghRunner, resolveGitHubToken, type GhRunner } from '../infra/forge/token.js';
import { probeSqlite } from '../infra/db/inspect.js';
import { failureOf, firstLine, runTool } from '../infra/exec.js';
import { probeSandbox } from '../infra/sandbox-probe.js';
import { probeLimits } from '../infra/agent/confine/limits.js';
import { MINIMUM_NODE, versionProblem } from '../node-version.js';

/** `note`: worth knowing, nothing to fix (an optional agent CLI that is not installed). */
export type CheckStatus = 'ok' | 'note' | 'warn' | 'fail';

export interface CheckResult {
  readonly check: string;
  readonly status: CheckStatus;
  readonly detail: string;
  /** How to fix it; null when there is nothing to do. */
  readonly fix: string | null;
}

export interface CheckContext {
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
  /** The ACP agents of GROVE_HOME/agents.json (none when absent). */
  readonly acpAgents?: AcpAgentsConfig;
}

export const ok = (check: string, detail: string): CheckResult => ({
  check,
  status: 'ok',
  detail,
  fix: null,
});
export const note = (check: string, detail: string, fix: string | null): CheckResult => ({
  check,
  status: 'note',
  detail,
  fix,
});
export const warn = (check: string, detail: string, fix: string | null): CheckResult => ({
  check,
  status: 'warn',
  detail,
  fix,
});
export const fail = (check: string, detail: string, fix: string): CheckResult => ({
  check,
  status: 'fail',
  detail,
  fix,
});

/** git ≥ 2.38: `git merge-tree --write-tree` (conflict checks without touching a checkout). */
export const MINIMUM_GIT: readonly [number, number] = [2, 38];

export function checkNode(): CheckResult {
  const problem = versionProblem(process.versions.node);
  if (problem !== null)
    return fail(
      'node',
      problem,
      'install Node.js 24 LTS (or 22.19+, 26) from nodejs.org or your version manager (nvm install 24)',
    );
  return ok('node', `Node.js ${process.version} (Grove needs ${MINIMUM_NODE} or newer)`);
}

export function checkSqlite(): CheckResult {
  const probe = probeSqlite();
  if (probe.ok)
    return ok(
      'sqlite',
      `better-sqlite3 ${probe.version ?? '(version unknown)'} loads (SQLite ${probe.sqlite})`,
    );
  const fix = probe.failure?.fix ?? 'reinstall Grove (npm ci in its folder)';
  return fail(
    'sqlite',
    probe.failure ? probe.message.replace(/\.? Fix: .*$/, '') : probe.message,
    fix,
  );
}

function versionAtLeast(found: string, [major, minor]: readonly [number, number]): boolean {
  const [a = 0, b = 0] = found.split('.').map((n) => Number.parseInt(n, 10));
  return a > major || (a === major && b >= minor);
}

export async function checkGit({ env, signal }: CheckContext): Promise<CheckResult> {
  const need = `${MINIMUM_GIT[0]}.${MINIMUM_GIT[1]}`;
  const install = `install git ${need} or newer (sudo apt install git, brew install git, or git-scm.com)`;
  const git = which('git', env);
  if (git === null) return fail('git', 'git is not installed (not found on PATH)', install);
  const run = await runTool(git, ['--version'], { env, signal, timeoutMs: 3000 });
  const version = /git version (\d+\.\d+(?:\.\d+)?)/.exec(run.stdout)?.[1];
  if (run.code !== 0 || version === undefined) {
    return fail(
      'git',
      `${git} --version failed (${run.error ?? (firstLine(run.stderr) || firstLine(run.stdout) || `exit ${String(run.code)}`)})`,
      `reinstall git: ${install}`,
    );
  }
  if (!versionAtLeast(version, MINIMUM_GIT)) {
    return fail(
      'git',
      `git ${version} at ${git} is too old: Grove needs ${need} or newer (for git merge-tree --write-tree)`,
      `upgrade git to ${need} or newer (sudo apt install git from your distribution's backports, brew upgrade git, or git-scm.com)`,
    );
  }
  return ok('git', `git ${version} (Grove needs ${need} or newer)`);
}

/** How to install each agent CLI (also on a host: src/cli/host-check.ts). */
export const INSTALL: Readonly<Record<BuiltinProviderId, string>> = {
  claude: 'npm install --global @anthropic-ai/claude-code',
  codex: 'npm install --global @openai/codex',
  gemini: 'npm install --global @google/gemini-cli',
};

type SignIn =
  | { readonly state: 'yes'; readonly how: string }
  | { readonly state: 'no' }
  | { readonly state: 'unknown'; readonly why: string };

function set(env: NodeJS.ProcessEnv, name: string): boolean {
  return Boolean(env[name]?.trim());
}

/**
 * Whether the CLI has credentials, from what it reads at start (its
 * environment variables and credential files); never by calling a model.
 */
export function signedIn(id: BuiltinProviderId, env: NodeJS.ProcessEnv): SignIn {
  const home = env['HOME'] || homedir();
  const firstSet = (names: readonly string[]): string | undefined =>
    names.find((name) => set(env, name));
  switch (id) {
    case 'claude': {
      const variable = firstSet([
        'ANTHROPIC_API_KEY',
        'ANTHROPIC_AUTH_TOKEN',
        'CLAUDE_CODE_OAUTH_TOKEN',
        'CLAUDE_CODE_USE_BEDROCK',
        'CLAUDE_CODE_USE_VERTEX',
      ]);
      if (variable) return { state: 'yes', how: variable };
      const dir = env['CLAUDE_CONFIG_DIR'] || join(home, '.claude');
      if (existsSync(join(dir, '.credentials.json')))
        return { state: 'yes', how: join(dir, '.credentials.json') };
      // On macOS the login lives in the Keychain, which only the CLI reads.
      if (process.platform === 'darwin')
        return { state: 'unknown', why: 'its login is in the macOS Keychain' };
      return { state: 'no' };
    }
    case 'codex': {
      const variable = firstSet(['OPENAI_API_KEY', 'CODEX_API_KEY']);
      if (variable) return { state: 'yes', how: variable };
      const file = join(env['CODEX_HOME'] || join(home, '.codex'), 'auth.json');
      if (existsSync(file)) return { state: 'yes', how: file };
      return { state: 'no' };
    }
    case 'gemini': {
      const variable = firstSet([
        'GEMINI_API_KEY',
        'GOOGLE_API_KEY',
        'GOOGLE_APPLICATION_CREDENTIALS',
        'GOOGLE_GENAI_USE_VERTEXAI',
      ]);
      if (variable) return { state: 'yes', how: variable };
      const file = join(home, '.gemini', 'oauth_creds.json');
      if (existsSync(file)) return { state: 'yes', how: file };
      return {
        state: 'unknown',
        why: 'no key in the environment and no Google login in ~/.gemini (it may use a keychain or Cloud Shell)',
      };
    }
  }
}

interface Found {
  readonly provider: BuiltinProviderInfo;
  readonly path: string | null;
  readonly version: string | null;
  readonly error: string | null;
}

async function findAgent(
  provider: BuiltinProviderInfo,
  { env, signal }: CheckContext,
): Promise<Found> {
  const path = which(provider.binary, env);
  if (path === null) return { provider, path, version: null, error: null };
  // Gemini relaunches itself with a bigger heap unless told not to: twice the start-up.
  // Even so it may take several seconds on a busy machine: wait rather than call a working CLI broken.
  const run = await runTool(path, ['--version'], {
    env: { ...env, GEMINI_CLI_NO_RELAUNCH: 'true' },
    signal,
    timeoutMs: 20_000,
  });
  const version = /\d+\.\d+\.\d+[\w.-]*/.exec(`${run.stdout}\n${run.stderr}`)?.[0] ?? null;
  const error =
    version !== null
      ? null
      : (run.error ?? (firstLine(run.stderr) || `--version exited ${String(run.code)}`));
  return { provider, path, version, error };
}

/**
 * One line per agent CLI. One agent is enough: a CLI that is not installed
 * is a note (how to add it), and only none at all is a failure, one line of
 * its own after theirs.
 */
export async function checkAgents(ctx: CheckContext): Promise<CheckResult[]> {
  const found = await Promise.all(PROVIDERS.map((provider) => findAgent(provider, ctx)));
  const results = found.map(({ provider, path, version, error }) => {
    const name = provider.id;
    if (path === null)
      return note(
        name,
        `${provider.name} (${provider.binary}) is not installed (not found on PATH)`,
        `to use it, install it: ${INSTALL[provider.id]}`,
      );
    if (version === null)
      return fail(
        name,
        `${path} does not run: ${error ?? 'no version reported'}`,
        `reinstall it: ${INSTALL[provider.id]}`,
      );
    const login = signedIn(provider.id, ctx.env);
    const what = `${provider.name} ${version} at ${path}`;
    switch (login.state) {
      case 'yes':
        return ok(name, `${what}, signed in (${login.how})`);
      case 'no':
        return warn(name, `${what}, not signed in`, provider.authHint);
      case 'unknown':
        return ok(name, `${what}, signed in: unknown (${login.why})`);
    }
  });
  const acp = acpAgentLines(ctx);
  if (found.some((f) => f.path !== null) || acp.found) return [...results, ...acp.lines];
  return [
    ...results,
    ...acp.lines,
    fail(
      'agents',
      `no agent CLI is installed: Grove needs at least one (${PROVIDERS.map((p) => p.name).join(', ')})`,
      'install one of them (the lines above say how) and sign in',
    ),
  ];
}

/**
 * One line per ACP agent of GROVE_HOME/agents.json: its command found (where)
 * or not; a file Grove refused is one failure saying why.
 */
function acpAgentLines(ctx: CheckContext): { lines: CheckResult[]; found: boolean } {
  const config = ctx.acpAgents;
  if (!config) return { lines: [], found: false };
  if (config.error)
    return {
      lines: [fail('agents.json', config.error, 'fix the file (see docs/usage/agents.md)')],
      found: false,
    };
  let found = false;
  const lines = config.agents.map((agent) => {
    const command = [agent.command, ...agent.args].join(' ');
    const path = which(agent.command, ctx.env);
    if (path === null)
      return warn(
        agent.name,
        `ACP agent: its command \`${command}\` is not found (not on PATH)`,
        `install it, or fix its command in agents.json`,
      );
    found = true;
    return ok(agent.name, `ACP agent: \`${command}\`, found at ${path}`);
  });
  return { lines, found };
}

/** Where publishing would take its GitHub token from (never the token itself). */
export async function checkGitHub({ env, signal }: CheckContext): Promise<CheckResult> {
  const gh = which('gh', env);
  const runGh: GhRunner = gh === null ? () => Promise.resolve(null) : ghRunner(gh, { env, signal });
  const found = await resolveGitHubToken(env, 'github.com', runGh);
  const fix =
    gh === null
      ? 'set GITHUB_TOKEN (a token with repo scope), or install the GitHub CLI and run gh auth login'
      : 'run gh auth login, or set GITHUB_TOKEN';
  if (found === null)
    return warn(
      'github',
      `no GitHub token (GITHUB_TOKEN, GH_TOKEN and ${gh === null ? 'gh (not installed)' : 'gh auth token'} give none): publishing pull requests will not work`,
      fix,
    );
  const source = found.source === 'gh' ? `gh auth token (${gh ?? 'gh'})` : `$${found.source}`;
  return ok('github', `a GitHub token comes from ${source}`);
}

export async function checkSandbox({ env, signal }: CheckContext): Promise<CheckResult> {
  const probe = await probeSandbox(env, signal);
  if (probe.ok)
    return ok(
      'sandbox',
      `${probe.engine === 'bubblewrap' ? 'bubblewrap' : 'Seatbelt (sandbox-exec)'} ${probe.version} can confine agents`,
    );
  return warn('sandbox', `${probe.reason}: agents cannot be confined to their worktree`, probe.fix);
}

/** How per-session memory and process limits are enforced here (docs/usage/capacity.md, Limits). */
export async function checkLimits(): Promise<CheckResult> {
  const found = await probeLimits();
  if (found.kind === 'unavailable')
    return note(
      'limits',
      `session limits (capacity.memoryMax, capacity.tasksMax, grove run --memory-max) are unavailable: ${found.reason}; a session given a limit runs without it and says so`,
      null,
    );
  return ok(
    'limits',
    found.kind === 'systemd'
      ? 'session limits are enforced by the user systemd (systemd-run --user --scope)'
      : `session limits are enforced by cgroups Grove makes (cgroup v${found.version}, in ${found.memory}${found.pids === found.memory ? '' : ` and ${found.pids}`})`,
  );
}

/** tmux matters only when Grove runs inside it ($TMUX is set). */
export async function checkTmux({ env, signal }: CheckContext): Promise<CheckResult> {
  const inside = set(env, 'TMUX');
  const tmux = which('tmux', env);
  if (tmux === null) {
    return inside
      ? warn(
          'tmux',
          'Grove runs inside tmux ($TMUX is set) but tmux is not on PATH',
          'put tmux on PATH (sudo apt install tmux, brew install tmux)',
        )
      : ok('tmux', 'not installed (used only when Grove runs inside tmux)');
  }
  const run = await runTool(tmux, ['-V'], { env, signal, timeoutMs: 3000 });
  const version = firstLine(run.stdout);
  if (run.code !== 0 || !version)
    return warn('tmux', `${tmux} -V failed (${failureOf(run)})`, 'reinstall tmux');
  return ok(
    'tmux',
    `${version}${inside ? ' (Grove runs inside it)' : ' (used when Grove runs inside tmux)'}`,
  );
}

const OSC52 =
  'copying falls back to OSC 52 (the terminal puts the text on the clipboard, also over SSH, if it allows it)';

/** The clipboard tool `y` would use, by platform and display. */
export function checkClipboard({ env }: CheckContext): CheckResult {
  const tool = (names: readonly string[]): string | undefined =>
    names.find((name) => which(name, env) !== null);
  if (process.platform === 'darwin') {
    return tool(['pbcopy'])
      ? ok('clipboard', 'pbcopy')
      : warn('clipboard', `pbcopy is not on PATH; ${OSC52}`, 'put /usr/bin on PATH');
  }
  if (process.platform === 'win32') return ok('clipboard', 'the Windows clipboard');
  const wayland = set(env, 'WAYLAND_DISPLAY');
  const x11 = set(env, 'DISPLAY');
  if (wayland) {
    const found = tool(['wl-copy']);
    if (found) return ok('clipboard', `${found} (Wayland)`);
  }
  if (x11) {
    const found = tool(['xsel', 'xclip']);
    if (found) return ok('clipboard', `${found} (X11)`);
  }
  if (!wayland && !x11 && set(env, 'TMUX') && tool(['tmux']))
    return ok(
      'clipboard',
      "tmux's paste buffer (Grove runs inside tmux, which also passes it to the terminal's clipboard)",
    );
  if (!wayland && !x11)
    return warn(
      'clipboard',
      `no display ($DISPLAY and $WAYLAND_DISPLAY are unset, e.g. over SSH); ${OSC52}`,
      null,
    );
  const want = wayland ? 'wl-clipboard (wl-copy)' : 'xsel or xclip';
  return warn(
    'clipboard',
    `no clipboard tool for this display (${want}); ${OSC52}`,
    `install ${want}: sudo apt install ${wayland ? 'wl-clipboard' : 'xsel'}`,
  );
}
