import { existsSync, realpathSync, rmSync, statSync } from 'node:fs';
import { constants as osConstants, homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { NetworkPolicy } from '../../../domain/network.js';
import type { ProviderId } from '../../../domain/providers.js';
import type { Logger } from '../../log.js';
import { runTool } from '../../exec.js';
import { gitCommonDirOf } from '../../git/git-dir.js';
import { probeSandbox, type SandboxProbe } from '../../sandbox-probe.js';
import { AgentError } from '../agent-error.js';
import { resolveCommand, spawnAgent, SpawnError, type AgentProcess } from './process.js';
import {
  forgetProcess,
  makeAgentTmp,
  recordProcess,
  sweepAgentTmpFolders,
  sweepLeftoverAgents,
} from './leftovers.js';
import { agentAllowList, authority, proxyEnv, relayCommand, relayProxyPort } from './network.js';
import { listenFor, openHostNetwork, type HostNetwork, type NetworkAgent } from './host-network.js';
import {
  createNetworkProxy,
  sweepProxyFolders,
  type NetworkHold,
  type NetworkProxy,
  type ProxyListener,
} from './network-proxy.js';
import {
  DEFAULT_EXPOSURE,
  NEVER_PASSED,
  type ExposurePolicy,
} from '../../../domain/agent-exposure.js';
import { agentEnvironment } from './agent-env.js';
import type { SessionLimits } from '../../../domain/limits.js';
import type { LimitBackend } from './limits.js';
import { createLimitKeeper, type LimitKeeper } from './limit-keeper.js';
import { ownPaths } from './own-paths.js';
import { sharedTargets } from '../../shared-folders.js';
import { exposurePlan, groveHomeOf, mainCheckoutOf } from './host-exposure.js';
import {
  bubblewrapArgs,
  forgeSecretPaths,
  seatbeltArgs,
  type ConfinementPlan,
  type NetworkPlan,
} from './sandbox.js';

// The one place that starts agent processes: every CLI turn, app-server,
// title and commit-message prompt goes through launch(). It filters the
// environment, wraps the process in the OS sandbox engine, ties its life to
// Grove's (watchdog + --die-with-parent) and records it for the start-up sweep.
// A confined agent's network goes through the filtering proxy (network-proxy.ts)
// unless the setting agents.network is open.

/** One agent process to start. */
export interface LaunchSpec {
  readonly provider: ProviderId;
  /** The Grove session it works for (its process tree's figures are shown there); absent for Grove's own prompts. */
  readonly sessionId?: string;
  /** The CLI, a name on env.PATH or a path. */
  readonly command: string;
  readonly args: readonly string[];
  /** The session's worktree (writable); for conflict resolution, the main checkout. */
  readonly cwd: string;
  /**
   * The project's main checkout, from Grove's records: the shared git folder
   * is found from it, never from the worktree's `.git` file (see
   * own-paths.ts). Absent, or equal to cwd (title, commit-message and
   * conflict prompts): no part of the shared git folder is writable.
   */
  readonly mainCheckout?: string;
  /**
   * Files the agent is given to read (attached images, kept in GROVE_HOME):
   * bound read-only where they are, even inside a hidden or private folder.
   */
  readonly readable?: readonly string[];
  /**
   * The worktree and the shared git folder stay read-only: an agent whose
   * own modes Grove cannot hold (an ACP agent of agents.json) in a Read Only
   * or Plan turn.
   */
  readonly readOnly?: boolean;
  readonly env: NodeJS.ProcessEnv;
  /**
   * Grove's own words for the process (a session hook's GROVE_EVENT and
   * the rest), passed past the filter. Only GROVE_ names, never GROVE_HOME.
   */
  readonly groveVars?: Readonly<Record<string, string>>;
  /** Called once per destination the network filter refused, with a line for the transcript. */
  readonly onNetworkDenied?: (line: string) => void;
  /**
   * Holds a request to a host not on the allow list for the person (the
   * turn's approval desk); absent, such a request is refused at once. The
   * CLI's own background calls are never held.
   */
  readonly holdNetwork?: NetworkHold;
}

/** How agents are confined right now, for the header and `grove doctor`. */
export type Confinement =
  | { readonly kind: 'confined'; readonly engine: 'bubblewrap' | 'seatbelt' }
  | { readonly kind: 'unconfined'; readonly reason: string }
  | { readonly kind: 'refused'; readonly reason: string; readonly fix: string };

export interface AgentLauncher {
  /** Starts one agent; rejects with SpawnError (not installed, no folder) or AgentError('sandbox'). */
  launch(spec: LaunchSpec): Promise<AgentProcess>;
  /** What launch() would do now (probes the sandbox engine once). */
  confinement(): Promise<Confinement>;
  /** Stops every agent this launcher started and waits (at most `graceMs` + 1 s) for them to end. */
  stopAll(graceMs?: number): Promise<void>;
  /** Ends recorded agents of Grove processes that are gone (see leftovers.ts); the number ended. */
  sweep(): Promise<number>;
  /** The process groups of the agents running now that work for a session, by session id. */
  running(): ReadonlyMap<string, readonly number[]>;
  /** A listener of the filtering proxy for an agent on a host (host-network.ts); null: the network is open. */
  hostNetwork?(
    agent: NetworkAgent,
    hostEnv: NodeJS.ProcessEnv,
    hostConfig?: readonly string[],
  ): Promise<HostNetwork | null>;
  /** Session limits (limit-keeper.ts): what a session's agents met, the line when they cannot be enforced, how. */
  readonly limits: Pick<LimitKeeper, 'takeHit' | 'notice' | 'backend'>;
}

export interface LauncherOptions {
  /** GROVE_HOME/run: where started processes are recorded for the sweep; null records nothing. */
  readonly runDir: string | null;
  /** The explicit opt-out (setting `agents.allowUnconfined`): run agents without a sandbox engine. */
  readonly allowUnconfined: () => Promise<boolean>;
  /** Finds and tries the sandbox engine (injected in tests). */
  readonly probe?: () => Promise<SandboxProbe>;
  /** The network policy for confined agents (settings agents.network*); filtered with no extra hosts when absent. */
  readonly network?: () => Promise<NetworkPolicy>;
  /** Where refused network destinations are logged. */
  readonly logger?: Logger;
  /** Extra environment variables and the hidden paths (settings agents.passEnv, agents.hiddenPaths); the defaults when absent. */
  readonly exposure?: () => Promise<ExposurePolicy>;
  /** The shared folders (setting worktree.shared, relative) of the project at this main checkout; none when absent. */
  readonly sharedFolders?: (mainCheckout: string) => Promise<readonly string[]>;
  /** The memory and process-count limits of a session's agents (settings, grove run --memory-max); none when absent. */
  readonly limits?: (sessionId: string) => Promise<SessionLimits>;
  /** Finds how limits are enforced here (limits.ts; a given cgroup folder in tests). */
  readonly limitProbe?: () => Promise<LimitBackend>;
}

/** The GROVE_ variables of `vars` a confined process may get (never GROVE_HOME). */
function groveVariables(
  vars: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(vars ?? {}))
    if (/^GROVE_[A-Z_]+$/.test(name) && !NEVER_PASSED.has(name)) out[name] = value;
  return out;
}

/** The message shown when no sandbox engine can confine agents and the opt-out is off. */
export function refusalMessage(reason: string, fix: string): string {
  return `Agents run only inside the operating system's sandbox, and ${reason}. To fix: ${fix}. Or, to run agents without confinement (they can then write anywhere your user can and reach any host), set "Run agents unconfined" (agents.allowUnconfined) to on in Settings.`;
}

function resolvedPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

async function gitCommonDir(cwd: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  // A worktree's top folder: read from its .git, no process (one per agent launch).
  if (existsSync(join(cwd, '.git'))) {
    try {
      return resolvedPath(await gitCommonDirOf(cwd));
    } catch {
      // Asked of git below.
    }
  }
  const run = await runTool('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd,
    env: { PATH: env['PATH'] ?? '/usr/bin:/bin', HOME: env['HOME'] ?? '' },
    timeoutMs: 10_000,
  });
  const dir = run.stdout.trim();
  return run.code !== 0 || !dir || !isAbsolute(dir) ? null : resolvedPath(dir);
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return resolvedPath(env['HOME'] || homedir());
}

/**
 * The writable and protected paths for one launch (own-paths.ts); makes the
 * CLI's state folders, the placeholders of missing protected paths and the
 * per-launch copies. `release` removes the placeholders once the agent ends.
 */
async function planFor(
  spec: LaunchSpec,
  tmp: string,
  engine: 'bubblewrap' | 'seatbelt',
  sharedFolders: LauncherOptions['sharedFolders'],
): Promise<{ plan: ConfinementPlan; release: () => void }> {
  const home = homeOf(spec.env);
  const cwd = resolvedPath(spec.cwd);
  const main = spec.mainCheckout;
  const shared =
    main && sharedFolders && resolvedPath(main) !== cwd
      ? await sharedTargets(main, await sharedFolders(main))
      : [];
  const own = await ownPaths({
    provider: spec.provider,
    env: spec.env,
    home,
    cwd,
    mainCheckout: spec.mainCheckout,
    tmp,
    engine,
    readOnly: spec.readOnly === true,
    shared,
  });
  const secrets = forgeSecretPaths(home);
  const hideDirs = secrets.dirs
    .filter((p) => existsSync(p) && statSync(p).isDirectory())
    .map(resolvedPath);
  const hideFiles = secrets.files
    .filter((p) => existsSync(p) && statSync(p).isFile())
    .map(resolvedPath);
  const plan: ConfinementPlan = {
    cwd,
    writable: own.writable,
    protect: own.protect,
    copies: own.copies,
    hideDirs,
    hideFiles,
  };
  return { plan, release: () => own.release() };
}

/**
 * The plan with the host's private folders, sockets and secrets taken away
 * (host-exposure.ts): a private /tmp with what the agent needs bound back,
 * the sockets and secrets hidden.
 */
async function withoutHostExposure(
  plan: ConfinementPlan,
  spec: LaunchSpec,
  env: NodeJS.ProcessEnv,
  command: string,
  policy: ExposurePolicy,
): Promise<ConfinementPlan> {
  const exposure = exposurePlan(
    {
      provider: spec.provider,
      platform: process.platform,
      hostEnv: spec.env,
      agentEnv: env,
      home: homeOf(spec.env),
      groveHome: groveHomeOf(spec.env),
      hiddenPaths: policy.hiddenPaths,
      command,
      args: spec.args,
      // Grove's records name it; for a prompt run in the worktree without them, the worktree's git
      // folder does (read-only either way: git there still reads its objects).
      mainCheckout:
        spec.mainCheckout && resolvedPath(spec.mainCheckout) !== plan.cwd
          ? resolvedPath(spec.mainCheckout)
          : mainCheckoutOf(await gitCommonDir(plan.cwd, spec.env), plan.cwd),
      writable: plan.writable,
    },
    process.getuid?.() ?? 0,
  );
  return {
    ...plan,
    privateDirs: exposure.privateDirs,
    readable: [
      ...exposure.readable,
      ...(spec.readable ?? [])
        .filter((path) => isAbsolute(path) && existsSync(path))
        .map((path) => ({ source: resolvedPath(path), target: path })),
      // A read-only worktree is still seen (under GROVE_HOME, which is hidden).
      ...(spec.readOnly ? [{ source: plan.cwd, target: plan.cwd }] : []),
    ],
    hideDirs: [...plan.hideDirs, ...exposure.hideDirs],
    hideFiles: [...plan.hideFiles, ...exposure.hideFiles],
    hideSockets: exposure.hideSockets,
  };
}

const PROBE_TIMEOUT_MS = 10_000;

/**
 * bubblewrap exits with 128 + N when the agent inside was killed by signal N;
 * report it as that signal, as for an agent started directly.
 */
function signalsFromExitCodes(proc: AgentProcess): AgentProcess {
  const names = Object.entries(osConstants.signals);
  const exited = proc.exited.then((exit) => {
    const name =
      exit.code !== null && exit.code > 128
        ? names.find(([, n]) => n === (exit.code ?? 0) - 128)?.[0]
        : undefined;
    return name ? { code: null, signal: name as NodeJS.Signals } : exit;
  });
  return {
    child: proc.child,
    pid: proc.pid,
    exited,
    stderrTail: () => proc.stderrTail(),
    kill: (graceMs) => proc.kill(graceMs),
    stop: (graceMs) => proc.stop(graceMs),
  };
}

const FILTERED: NetworkPolicy = { mode: 'filtered', extra: [] };

/** The command, environment and plan of one agent whose network is filtered. */
interface FilteredLaunch {
  readonly listener: ProxyListener;
  readonly network: NetworkPlan;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

export function createLauncher(options: LauncherOptions): AgentLauncher {
  const live = new Set<AgentProcess>();
  /** The session each running agent works for. */
  const owners = new Map<AgentProcess, string>();
  let proxy: NetworkProxy | null = null;
  const limits = createLimitKeeper(options.limits, options.limitProbe);
  /** spawnAgent, inside the session's limits when it has some (the command line is unchanged without). */
  const spawnLimited = async (
    spec: LaunchSpec,
    command: string,
    args: readonly string[],
    how: { cwd: string; env: NodeJS.ProcessEnv },
  ): Promise<AgentProcess> => {
    const wrapped = await limits.prepare(spec.sessionId, command, args, how.env);
    if (!wrapped.run) return spawnAgent(command, args, how);
    const run = wrapped.run;
    const resolved = resolveCommand(wrapped.command, process.env) ?? wrapped.command;
    const env = { ...how.env, ...run.env };
    const proc = await spawnAgent(resolved, wrapped.args, { cwd: how.cwd, env }).catch(
      async (error: unknown) => {
        await run.finish();
        throw error;
      },
    );
    limits.started(spec.sessionId ?? '', run, proc.exited);
    return proc;
  };

  /** Opens this agent's proxy listener; with bubblewrap the relay becomes the command. */
  const filtered = async (
    spec: LaunchSpec,
    engine: 'bubblewrap' | 'seatbelt',
    policy: NetworkPolicy & { mode: 'filtered' },
    command: string,
    env: NodeJS.ProcessEnv,
  ): Promise<FilteredLaunch> => {
    const { allow, loopback } = agentAllowList(
      spec.provider,
      env,
      spec.args,
      homeOf(env),
      policy.extra,
    );
    proxy ??= createNetworkProxy();
    const listener = await listenFor(
      proxy,
      engine === 'bubblewrap' ? 'unix' : 'tcp',
      allow,
      spec,
      options.logger,
    );
    const loopbackPorts = loopback.map((l) => l.port);
    if (engine === 'seatbelt') {
      const port = listener.port ?? 0;
      return {
        listener,
        network: { socketDir: null, proxyPort: port, loopbackPorts },
        command,
        args: spec.args,
        env: proxyEnv(env, port),
      };
    }
    const proxyPort = relayProxyPort(loopback);
    const relay = relayCommand(
      {
        socket: listener.socketPath ?? '',
        proxyPort,
        forward: loopback.map((l) => ({ port: l.port, target: authority(l.host, l.port) })),
      },
      command,
      spec.args,
    );
    return {
      listener,
      network: { socketDir: listener.socketDir, proxyPort: null, loopbackPorts },
      command: relay.command,
      args: relay.args,
      env: proxyEnv(env, proxyPort),
    };
  };
  let probed: Promise<SandboxProbe> | null = null;
  const probe = (): Promise<SandboxProbe> => {
    probed ??= (
      options.probe ?? (() => probeSandbox(process.env, AbortSignal.timeout(PROBE_TIMEOUT_MS)))
    )();
    return probed;
  };

  const confinement = async (): Promise<Confinement> => {
    const found = await probe();
    if (found.ok) return { kind: 'confined', engine: found.engine };
    if (await options.allowUnconfined()) return { kind: 'unconfined', reason: found.reason };
    return { kind: 'refused', reason: found.reason, fix: found.fix };
  };

  const launch = async (spec: LaunchSpec): Promise<AgentProcess> => {
    const how = await confinement();
    if (how.kind === 'refused')
      throw new AgentError(spec.provider, 'sandbox', refusalMessage(how.reason, how.fix));
    const exposure = options.exposure ? await options.exposure() : DEFAULT_EXPOSURE;
    const env = {
      ...agentEnvironment(spec.env, {
        provider: spec.provider,
        args: spec.args,
        home: homeOf(spec.env),
        passEnv: exposure.passEnv,
      }),
      ...groveVariables(spec.groveVars),
    };
    const command = resolveCommand(spec.command, env);
    if (command === null) throw new SpawnError('ENOENT', `${spec.command}: not found on PATH`);
    let tmp: string | null = null;
    let release: (() => void) | null = null;
    let net: FilteredLaunch | null = null;
    let proc: AgentProcess;
    try {
      if (how.kind === 'unconfined') {
        proc = await spawnLimited(spec, command, spec.args, { cwd: spec.cwd, env });
      } else {
        if (!existsSync(spec.cwd))
          throw new SpawnError('ENOCWD', `the working folder ${spec.cwd} does not exist`);
        tmp = makeAgentTmp();
        const policy = options.network ? await options.network() : FILTERED;
        if (policy.mode === 'filtered')
          net = await filtered(spec, how.engine, policy, command, env);
        const own = await planFor(spec, tmp, how.engine, options.sharedFolders);
        release = own.release;
        const plan: ConfinementPlan = {
          ...(await withoutHostExposure(own.plan, spec, env, command, exposure)),
          ...(net ? { network: net.network } : {}),
        };
        const confinedEnv = { ...(net?.env ?? env), TMPDIR: tmp };
        const run = net ? { command: net.command, args: net.args } : { command, args: spec.args };
        proc =
          how.engine === 'bubblewrap'
            ? signalsFromExitCodes(
                await spawnLimited(
                  spec,
                  resolveCommand('bwrap', process.env) ?? 'bwrap',
                  bubblewrapArgs(plan, run.command, run.args),
                  { cwd: spec.cwd, env: confinedEnv },
                ),
              )
            : await spawnLimited(
                spec,
                '/usr/bin/sandbox-exec',
                seatbeltArgs(plan, run.command, run.args),
                { cwd: spec.cwd, env: confinedEnv },
              );
      }
    } catch (error) {
      release?.();
      if (tmp) rmSync(tmp, { recursive: true, force: true });
      if (net) await net.listener.close();
      throw error;
    }
    live.add(proc);
    if (spec.sessionId !== undefined) owners.set(proc, spec.sessionId);
    const record = options.runDir
      ? recordProcess(options.runDir, proc.pid, spec.provider, Date.now(), spec.sessionId)
      : null;
    const privateTmp = tmp;
    const releasePaths = release;
    const listener = net?.listener;
    void proc.exited.then(() => {
      live.delete(proc);
      owners.delete(proc);
      if (record) forgetProcess(record);
      releasePaths?.();
      if (privateTmp) rmSync(privateTmp, { recursive: true, force: true });
      if (listener) void listener.close();
    });
    return proc;
  };

  return {
    launch,
    confinement,
    limits,
    hostNetwork: async (agent, hostEnv, hostConfig) => {
      const policy = options.network ? await options.network() : FILTERED;
      if (policy.mode !== 'filtered') return null;
      proxy ??= createNetworkProxy();
      return openHostNetwork(proxy, policy, agent, hostEnv, options.logger, hostConfig);
    },
    running: () => {
      const bySession = new Map<string, number[]>();
      for (const [proc, sessionId] of owners) {
        const pids = bySession.get(sessionId);
        if (pids) pids.push(proc.pid);
        else bySession.set(sessionId, [proc.pid]);
      }
      return bySession;
    },
    sweep: async () => {
      sweepProxyFolders();
      const ended = options.runDir ? await sweepLeftoverAgents(options.runDir) : 0;
      sweepAgentTmpFolders();
      return ended;
    },
    async stopAll(graceMs = 1500) {
      const running = [...live];
      for (const proc of running) proc.kill(graceMs);
      const deadline = new Promise<void>((done) => setTimeout(done, graceMs + 1000).unref());
      await Promise.race([Promise.all(running.map((p) => p.exited)), deadline]);
      // Nothing of the proxy outlives the agents (a later launch opens it again).
      const open = proxy;
      proxy = null;
      if (open) await open.close();
    },
  };
}

let fallback: AgentLauncher | null = null;

/** Channels built without a launcher (tests, tools) share a confined one that records nothing. */
export function defaultLauncher(): AgentLauncher {
  fallback ??= createLauncher({ runDir: null, allowUnconfined: () => Promise.resolve(false) });
  return fallback;
}

/**
 * Starts an agent with the channel's launcher (or the default one); every
 * failure becomes an AgentError in words: not installed, worktree gone, no
 * sandbox, or could not start.
 */
export async function launchAgent(
  launcher: AgentLauncher | undefined,
  spec: LaunchSpec,
  label: string,
  installHint: string,
): Promise<AgentProcess> {
  try {
    return await (launcher ?? defaultLauncher()).launch(spec);
  } catch (error) {
    if (error instanceof AgentError) throw error;
    if (error instanceof SpawnError && error.code === 'ENOENT') {
      const name = spec.command.split('/').pop() ?? spec.command;
      throw new AgentError(
        spec.provider,
        'missing_cli',
        `${label} (\`${name}\`) is not installed or not on PATH. ${installHint}`,
      );
    }
    if (error instanceof SpawnError && error.code === 'ENOCWD') {
      throw new AgentError(
        spec.provider,
        'crash',
        `${label} could not start: its working folder ${spec.cwd} does not exist.`,
      );
    }
    throw new AgentError(
      spec.provider,
      'crash',
      `${label} could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
