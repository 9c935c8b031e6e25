import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import {
  builtinProvider,
  type BuiltinProviderId,
  type ProviderId,
} from '../../../domain/providers.js';
import { grovePaths } from '../../paths.js';
import type { BindBack } from './sandbox.js';

// What of the host an agent must not reach through the read-only file system:
// folders where other programs keep their unix sockets (/tmp, /run/user/<uid>)
// become private to the sandbox, the sockets the environment names and the
// well-known system ones are hidden, and secrets on disk (the person's keys,
// GROVE_HOME, the other CLIs' logins) read as empty. Pure apart from checking
// which paths exist; the launcher puts the result into the ConfinementPlan.

/** What one launch hides and makes private, as ConfinementPlan fields. */
export interface ExposurePlan {
  readonly privateDirs: string[];
  readonly readable: BindBack[];
  readonly hideDirs: string[];
  readonly hideFiles: string[];
  readonly hideSockets: string[];
}

export interface ExposureInput {
  readonly provider: ProviderId;
  readonly platform: NodeJS.Platform;
  /** Grove's own environment (the sockets it names are hidden). */
  readonly hostEnv: NodeJS.ProcessEnv;
  /** The agent's (allow-listed) environment: its PATH and the paths it names stay readable. */
  readonly agentEnv: NodeJS.ProcessEnv;
  readonly home: string;
  readonly groveHome: string;
  /** Setting agents.hiddenPaths, `~/` not yet expanded. */
  readonly hiddenPaths: readonly string[];
  /** The agent's command, resolved on PATH. */
  readonly command: string;
  /** Its arguments: files they name are read. */
  readonly args: readonly string[];
  /** The main checkout of the worktree the agent runs in, when there is one. */
  readonly mainCheckout: string | null;
  /** Paths the plan already makes writable (bound after the private folders). */
  readonly writable: readonly string[];
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * Folders replaced by an empty private one: the shared temporary folders and
 * the per-user runtime folder, where tmux, ssh-agent, X11, D-Bus, gpg-agent,
 * Wayland and rootless container engines keep their sockets.
 */
export function privateDirs(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  uid: number,
): string[] {
  if (platform === 'darwin')
    return ['/private/tmp', '/private/var/tmp', real(env['TMPDIR'] || tmpdir())];
  const dirs = ['/tmp', '/var/tmp', `/run/user/${uid}`, '/run/screen', '/var/run/screen'];
  const runtime = env['XDG_RUNTIME_DIR'];
  if (runtime && isAbsolute(runtime)) dirs.push(runtime);
  const tmp = env['TMPDIR'];
  if (tmp && isAbsolute(tmp) && real(tmp) !== '/') dirs.push(tmp);
  return dirs;
}

/** System sockets outside the private folders that run programs as someone else. */
const WELL_KNOWN_SOCKETS: Record<'linux' | 'darwin', readonly string[]> = {
  linux: [
    '/run/docker.sock',
    '/var/run/docker.sock',
    '/run/podman/podman.sock',
    '/run/containerd/containerd.sock',
    '/run/crio/crio.sock',
    '/run/dbus/system_bus_socket',
    '/var/run/dbus/system_bus_socket',
    '/run/snapd.socket',
    '/run/snapd-snap.socket',
    '/run/systemd/private',
    '/run/libvirt/libvirt-sock',
  ],
  darwin: [
    '/private/var/run/docker.sock',
    '~/.colima/default/docker.sock',
    '~/.orbstack/run/docker.sock',
    '~/.rd/docker.sock',
  ],
};

/** The unix sockets Grove's environment names: its tmux server, ssh-agent, D-Bus, Docker, gpg-agent, Wayland, X11. */
export function socketsNamedBy(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  const add = (path: string | undefined): void => {
    if (path && isAbsolute(path)) out.push(path);
  };
  add(env['TMUX']?.split(',')[0]);
  add(env['SSH_AUTH_SOCK']);
  add(env['GPG_AGENT_INFO']?.split(':')[0]);
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'DBUS_SYSTEM_BUS_ADDRESS'])
    for (const part of (env[name] ?? '').split(';')) add(/(?:^|[,:])path=([^,]+)/.exec(part)?.[1]);
  for (const name of ['DOCKER_HOST', 'CONTAINER_HOST'])
    add(/^unix:\/\/(\/.+)$/.exec(env[name] ?? '')?.[1]);
  const wayland = env['WAYLAND_DISPLAY'];
  if (wayland)
    add(
      isAbsolute(wayland)
        ? wayland
        : env['XDG_RUNTIME_DIR'] && join(env['XDG_RUNTIME_DIR'], wayland),
    );
  const display = /^:(\d+)/.exec(env['DISPLAY'] ?? '')?.[1];
  if (display) add(`/tmp/.X11-unix/X${display}`);
  return out;
}

/** Where each CLI keeps its login and transcripts; hidden from the other CLIs. */
export function cliCredentialPaths(
  env: NodeJS.ProcessEnv,
  home: string,
): Record<BuiltinProviderId, string[]> {
  const claude = env['CLAUDE_CONFIG_DIR'] || join(home, '.claude');
  const codex = env['CODEX_HOME'] || join(home, '.codex');
  const gemini = join(env['GEMINI_CLI_HOME'] || home, '.gemini');
  return {
    claude: [claude, join(home, '.claude'), join(home, '.claude.json')],
    codex: [codex, join(home, '.codex')],
    gemini: [gemini, join(home, '.gemini')],
  };
}

/** Cloud logins a CLI uses when told to (Claude Code on Bedrock or Vertex AI, Gemini CLI on Vertex AI). */
function cloudLoginsInUse(provider: ProviderId, env: NodeJS.ProcessEnv, home: string): string[] {
  const used: string[] = [];
  if (provider === 'claude' && env['CLAUDE_CODE_USE_BEDROCK']) used.push(join(home, '.aws'));
  if (
    (provider === 'claude' && env['CLAUDE_CODE_USE_VERTEX']) ||
    (provider === 'gemini' && env['GOOGLE_GENAI_USE_VERTEXAI'])
  )
    used.push(join(home, '.config', 'gcloud'));
  return used;
}

function expand(path: string, home: string): string {
  return path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

/** Credential files the environment names, for the CLIs that do not use them. */
function namedCredentialFiles(provider: ProviderId, env: NodeJS.ProcessEnv): string[] {
  const files = [env['XAUTHORITY']];
  if (!(provider === 'claude' && env['CLAUDE_CODE_USE_BEDROCK']))
    files.push(env['AWS_SHARED_CREDENTIALS_FILE'], env['AWS_CONFIG_FILE']);
  if (provider !== 'gemini' && !(provider === 'claude' && env['CLAUDE_CODE_USE_VERTEX']))
    files.push(env['GOOGLE_APPLICATION_CREDENTIALS']);
  return files.filter((f): f is string => Boolean(f && isAbsolute(f)));
}

/** The secrets hidden from one agent: the setting's list, GROVE_HOME, the other CLIs' folders. */
export function secretPaths(input: ExposureInput): string[] {
  const { provider, hostEnv, home } = input;
  const all = cliCredentialPaths(hostEnv, home);
  // An agent named in agents.json owns none of them: all are hidden from it.
  const builtin = builtinProvider(provider);
  const own = new Set((builtin ? all[builtin] : []).map(real));
  const others = Object.entries(all)
    .filter(([id]) => id !== provider)
    .flatMap(([, paths]) => paths)
    .filter((p) => !own.has(real(p)));
  const kept = new Set(cloudLoginsInUse(provider, hostEnv, home));
  return [
    ...input.hiddenPaths.map((p) => expand(p, home)).filter((p) => !kept.has(p)),
    input.groveHome,
    ...others,
    ...namedCredentialFiles(provider, hostEnv),
  ];
}

/**
 * What a program needs besides its own file, as the agent names it: the
 * outermost node_modules it lies in (a CLI's package, the platform binary
 * beside it, the links in node_modules/.bin), else the path itself.
 */
function programRoot(path: string): string {
  const parts = path.split(sep);
  const at = parts.indexOf('node_modules');
  return at > 0 ? parts.slice(0, at + 1).join(sep) : path;
}

/**
 * The paths the agent reads that lie inside a private folder: bound back
 * read-only, both where the agent names them and at their real path. Not a
 * private folder itself or one holding one, not what is writable already (a
 * PATH entry inside the worktree stays writable), not inside a hidden folder.
 */
function readableInside(
  input: ExposureInput,
  covered: readonly string[],
  hidden: readonly string[],
): BindBack[] {
  const absolute = (v: unknown): v is string =>
    typeof v === 'string' && isAbsolute(v) && !v.includes(delimiter);
  const named = [
    input.home,
    input.command,
    real(input.command),
    process.execPath,
    ...(input.mainCheckout ? [input.mainCheckout] : []),
    ...(input.agentEnv['PATH'] ?? '').split(delimiter),
    ...Object.values(input.agentEnv).filter(absolute),
    ...input.args.filter(absolute),
  ];
  const usable = (target: string): boolean =>
    covered.some((dir) => inside(target, dir)) &&
    !covered.some((dir) => inside(dir, target)) &&
    !input.writable.some((w) => inside(target, w)) &&
    !hidden.some((h) => inside(target, h));
  const out = new Map<string, BindBack>();
  for (const path of named) {
    if (!path || !isAbsolute(path) || !existsSync(path)) continue;
    for (const hop of linkChain(resolve(path))) {
      const root = programRoot(hop);
      const source = real(root);
      for (const target of new Set([root, source]))
        if (usable(target) && !out.has(target)) out.set(target, { source, target });
    }
  }
  // What a folder bound back already shows is not bound again (a link in it would be a file to create).
  const targets = [...out.keys()];
  return [...out.values()].filter(
    (b) => !targets.some((t) => t !== b.target && inside(b.target, t)),
  );
}

/** `path` and each path its symbolic links lead to, in order (a CLI linked into a PATH folder). */
function linkChain(path: string): string[] {
  const chain = [path];
  let current = path;
  for (let hop = 0; hop < 16; hop += 1) {
    let target: string;
    try {
      if (!lstatSync(current).isSymbolicLink()) break;
      target = readlinkSync(current);
    } catch {
      break;
    }
    current = resolve(dirname(current), target);
    chain.push(current);
  }
  return chain;
}

function isSocket(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

/** The private folders, bind-backs and hidden paths of one launch. */
export function exposurePlan(input: ExposureInput, uid: number): ExposurePlan {
  const dirs = [
    ...new Set(
      privateDirs(input.platform, input.hostEnv, uid)
        .filter((p) => existsSync(p) && statSync(p).isDirectory())
        .map(real),
    ),
  ].filter((p) => p !== '/');
  const hideDirs: string[] = [];
  const hideFiles: string[] = [];
  for (const path of secretPaths(input)) {
    if (!existsSync(path)) continue;
    const resolved = real(path);
    (statSync(resolved).isDirectory() ? hideDirs : hideFiles).push(resolved);
  }
  const readable = readableInside(input, dirs, [...hideDirs, ...hideFiles]);
  const platform = input.platform === 'darwin' ? 'darwin' : 'linux';
  const sockets = [...WELL_KNOWN_SOCKETS[platform], ...socketsNamedBy(input.hostEnv)]
    .map((p) => expand(p, input.home))
    .filter(isSocket)
    .map(real);
  return {
    privateDirs: dirs,
    readable,
    hideDirs: [...new Set(hideDirs)],
    hideFiles: [...new Set(hideFiles)],
    hideSockets: [...new Set(sockets)],
  };
}

/** The main checkout of a worktree whose common git folder is `commonDir` (its `.git`), else null. */
export function mainCheckoutOf(commonDir: string | null, cwd: string): string | null {
  if (!commonDir || basename(commonDir) !== '.git') return null;
  const main = dirname(commonDir);
  // A pointer the agent rewrote to a folder inside its worktree names no main checkout.
  return inside(main, cwd) ? null : main;
}

/** GROVE_HOME as Grove resolves it. */
export function groveHomeOf(env: NodeJS.ProcessEnv): string {
  return real(grovePaths(env).home);
}
