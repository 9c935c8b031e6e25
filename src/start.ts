import { existsSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { RepoRootPrefetch } from './infra/git/repo-root.js';
import { USAGE, UsageError, parseCli } from './cli.js';
import { VERSION, isOwnerAlive, openInfra, type Infra } from './compose.js';
import { createHostCleaner } from './infra/hosts/remote-cleanup.js';
import { groveSsh } from './infra/hosts/ssh.js';
import { DatabaseError, storageFailure } from './infra/db/errors.js';
import { shellRunner } from './infra/shell.js';
import { createClipboard } from './infra/clipboard.js';
import { createImageStore } from './infra/images.js';
import {
  NO_EDITOR,
  editorCommand,
  openTmuxWindow,
  runInteractive,
  shellCommand,
} from './infra/interactive.js';
import { createNotifier } from './infra/notify.js';
import { createHandoff } from './runtime/handoff.js';
import { usageErrorText, type HeadlessCommand } from './cli/args.js';
import { runHeadless } from './cli/dispatch.js';
import { CommandError, shutdownContexts, type HeadlessIo } from './cli/headless.js';
import { exitWhenWritten, guardOutput } from './cli/exit.js';
import { sanitizedOutput } from './cli/safe-output.js';
import { sanitizeText } from './domain/sanitize.js';
import { pinnedNodeNotice } from './node-version.js';
import { App } from './app/app.js';
import { Controller } from './app/controller.js';
import { initialState, TABS, type Tab } from './app/state.js';
import {
  recoverInterruptedOperations,
  recoverInterruptedReviews,
} from './app/services/recovery.js';
import {
  ACTIVE_PROJECT_KEY,
  ACTIVE_TAB_KEY,
  loadSettings,
  startSessions,
} from './app/services/projects.js';
import { setupTerminal } from './runtime/terminal.js';
import { createRenderer } from './runtime/renderer.js';
import { runLoop } from './runtime/loop.js';
import { colourAllowed, createTheme } from './ui/theme.js';
import type * as markdownModule from './ui/markdown.js';
import { whenAnswerNeeded } from './ui/transcript-lines.js';
import { loadKeyBindings } from './infra/key-bindings-file.js';
import { setKeymap } from './domain/key-lookup.js';
import { readProcessTable } from './infra/proc.js';
import { checkIntegrity } from './infra/db/integrity.js';
import { checkDatabaseWhenDue } from './app/services/database-check.js';

/** Says why on stderr and ends once it is written (cli/exit.ts). */
function fail(message: string, code: number): Promise<never> {
  guardOutput();
  process.stderr.write(`grove: ${message}\n`);
  return exitWhenWritten(code);
}

async function main(prefetch: RepoRootPrefetch | null, hooks: StartHooks): Promise<void> {
  let command;
  try {
    command = parseCli(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      guardOutput();
      process.stderr.write(usageErrorText(error));
      return exitWhenWritten(2);
    }
    throw error;
  }
  // Every exit after output waits for it to be written, pipes included.
  if (command.kind !== 'tui') guardOutput();
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return exitWhenWritten(0);
  }
  if (command.kind === 'version') {
    process.stdout.write(`grove ${VERSION}\n`);
    return exitWhenWritten(0);
  }
  if (command.kind === 'headless') return exitWhenWritten(await headless(command.command));

  const dir = resolve(command.dir ?? process.cwd());
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    guardOutput();
    process.stderr.write(
      `grove: no such directory: ${dir}\nUsage: grove [-C DIR] [--help] [--version]\n`,
    );
    return exitWhenWritten(2);
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    return fail('needs an interactive terminal (stdin and stdout must be a TTY).', 1);
  }

  // Start-up phases, in ms since the process started (logged with the first frame).
  const phases: string[] = [`modules ${performance.now().toFixed(0)}`];
  const env = process.env;
  let infra: Infra;
  try {
    infra = openInfra(env);
  } catch (error) {
    if (error instanceof DatabaseError) return fail(error.message, 1);
    throw error;
  }
  const { paths, logger, db, store, git, clock, agents, forge, runtime } = infra;
  const owner = runtime.owner;
  logger.log('info', `grove ${VERSION} starting in ${dir}`);
  phases.push(`database ${performance.now().toFixed(0)}`);

  // The entry point may already have asked git (while this module loaded).
  const root = await (prefetch?.dir === dir ? prefetch.root : git.repoRoot(dir));
  phases.push(`repository ${performance.now().toFixed(0)}`);
  let activeProjectId: number | null = null;
  if (root) {
    const project = await store.projects.upsert(root, basename(root), clock.now());
    activeProjectId = project.id;
    await store.settings.setGlobal(ACTIVE_PROJECT_KEY, String(project.id));
  }
  const projects = await store.projects.list();
  if (!root && projects.length === 0) {
    await db.close();
    return fail(
      `${dir} is not inside a git repository. Start grove in a repository, or pass -C <dir>.`,
      1,
    );
  }

  // Operations left unfinished by a process that is gone: fail them, return their sessions to Review.
  // Checkouts they left half-way through a rebase, squash merge or sync are put right.
  const checkoutNotices: string[] = [];
  // `npm start` on an older Node (xtask/with-node.mjs): said here, where it is seen.
  const machineNode = env['GROVE_MACHINE_NODE'];
  if (machineNode) {
    delete env['GROVE_MACHINE_NODE'];
    checkoutNotices.push(sanitizeText(pinnedNodeNotice(machineNode, process.versions.node)));
  }
  // The person's keys (GROVE_HOME/keys.json): a file with a mistake changes nothing and says so here.
  const keys = loadKeyBindings(paths.keyBindings);
  setKeymap(keys.keymap);
  if (keys.error) {
    logger.log('warn', keys.error);
    checkoutNotices.push(sanitizeText(keys.error));
  }
  // First end any agent a dead Grove left running, so nothing writes to a worktree recovery calls "as it was".
  const swept = await agents.sweepLeftovers();
  if (swept > 0)
    logger.log(
      'warn',
      `ended ${swept} agent process group(s) left by a Grove process that is gone`,
    );
  const interrupted = await recoverInterruptedOperations(
    store,
    clock.now(),
    (o, heartbeatAt) => isOwnerAlive(o, owner, heartbeatAt, clock.now()),
    undefined,
    {
      git,
      owner,
      logger,
      onProjectNotice: (text) => checkoutNotices.push(text),
    },
  );
  if (interrupted.length > 0)
    logger.log('warn', `recovered ${interrupted.length} interrupted session(s)`);
  await recoverInterruptedReviews(store, clock.now());

  const storedTab = await store.settings.getGlobal(ACTIVE_TAB_KEY);
  let tab: Tab = TABS.includes(storedTab as Tab) ? (storedTab as Tab) : 'sessions';
  if (!root) {
    tab = 'projects';
    checkoutNotices.push(
      `${dir} is not inside a git repository, so no project is active: pick one below (Enter), or start grove in a repository (or with -C DIR).`,
    );
  }
  // The live sessions and the archive's count: its rows come in pages (Controller.start reads the first).
  const [{ sessions, archive }, settings] = await Promise.all([
    startSessions(store, activeProjectId),
    loadSettings(store, activeProjectId),
  ]);

  phases.push(`snapshot ${performance.now().toFixed(0)}`);
  const terminal = setupTerminal(process.stdin, process.stdout);
  const cleanup = (): void => terminal.restore();
  const crash = (error: unknown): void => {
    logger.log('error', 'uncaught error', error);
    cleanup();
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`grove crashed: ${message}\nDetails are in ${paths.logFile}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  /** Set once the controller exists: stops running turns (their sessions go to Review) before exiting. */
  let stopWork: () => Promise<void> = () => Promise.resolve();
  let exiting = false;
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.on(signal, () => {
      // A shell or an editor has the terminal (o, e): its Ctrl+C is its own.
      if (signal === 'SIGINT' && terminal.suspended) return;
      cleanup();
      // A second signal while the turns settle: exit at once (recovery at the next start does the rest).
      if (exiting) process.exit(code);
      exiting = true;
      // The terminal is gone: what was still on its way to it fails (EIO), and that is not a crash.
      if (signal === 'SIGHUP')
        for (const stream of [process.stdout, process.stdin]) stream.on('error', () => {});
      logger.log('info', `exiting on ${signal}`);
      void stopWork()
        .catch((error: unknown) => logger.log('warn', 'stopping work on exit failed', error))
        .finally(() => process.exit(code));
    });
  }
  process.on('exit', cleanup);

  const app = new App(
    initialState({
      version: VERSION,
      columns: terminal.columns,
      rows: terminal.rows,
      now: clock.now(),
      tab,
      projects,
      activeProjectId,
      sessions,
      archive,
      settings,
    }),
    logger,
  );
  const handoff = createHandoff({
    terminal,
    commandFor: (tool) => {
      if (tool === 'shell') return { command: shellCommand(env), args: [] };
      const editor = editorCommand(env);
      if (editor === null) throw new Error(NO_EDITOR);
      return { command: editor, args: ['.'] };
    },
    invalidate: () => renderer.invalidate(),
    redraw: (columns, rows) => app.emit({ type: 'resize', columns, rows }),
    runInteractive: (command, args, cwd) => runInteractive(command, args, cwd, env),
    openTmuxWindow: env['TMUX']
      ? (command, args, cwd) => openTmuxWindow(command, args, cwd, env)
      : null,
  });
  const notifier = createNotifier((data) => terminal.write(data), env);
  const controller = new Controller({
    app,
    store,
    git,
    agents,
    forge,
    shell: shellRunner,
    runtime,
    hosts: infra.hosts,
    hostCleaner: createHostCleaner(groveSsh(env, paths.home), store.hosts),
    clipboard: createClipboard((data) => terminal.write(data), env),
    images: createImageStore(join(paths.home, 'images'), env),
    handoff,
    notifier,
    processes: () => readProcessTable(),
  });
  app.setIntents(controller);
  stopWork = async () => {
    await controller.shutdown();
    await db.close();
  };
  if (process.env['GROVE_CRASH_TEST'] === '1')
    setTimeout(() => {
      throw new Error('crash requested by GROVE_CRASH_TEST');
    }, 300);

  const renderer = createRenderer((data) => terminal.write(data), createTheme(env), env['HOME']);
  const started = performance.now();
  let firstFrame = true;
  controller.start();
  for (const text of checkoutNotices) app.emit({ type: 'notice', notice: { level: 'warn', text } });
  // The markdown renderer (and its highlighter: costly to load, figures in
  // docs/performance.md) loads just before an answer is first laid out, synchronously,
  // so that transcript is measured once, as markdown: a Grove that only shows
  // the list never loads it.
  whenAnswerNeeded(() => {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose (above); the build makes it dist/grove-markdown.cjs
      return (require('./ui/markdown.js') as typeof markdownModule).markdownRenderer(
        colourAllowed(env),
      );
    } catch (error) {
      logger.log('warn', 'markdown renderer failed to load', error);
      return undefined;
    }
  });
  await runLoop({
    app,
    terminal,
    renderer,
    now: () => clock.now(),
    onFrame: (ms) => {
      hooks.onFrame?.();
      if (firstFrame) {
        firstFrame = false;
        phases.push(`first frame ${performance.now().toFixed(0)}`);
        logger.log(
          'info',
          `first frame after ${(performance.now() - started).toFixed(1)} ms (render ${ms.toFixed(1)} ms); start-up: ${phases.join(', ')} ms`,
        );
        if (hooks.afterFirstFrame) setImmediate(hooks.afterFirstFrame);
        void checkDatabaseWhenDue({
          app,
          store,
          check: () => checkIntegrity(paths.database),
          now: () => clock.now(),
          logger,
        });
      }
    },
  });
  renderer.unmount();
  cleanup();
  await controller.shutdown();
  await db.close();
  logger.log('info', 'grove exited');
  process.exit(0);
}

async function headless(command: HeadlessCommand): Promise<number> {
  // Neither opens the database (doctor inspects it read-only by itself).
  if (command.kind === 'help' || command.kind === 'doctor')
    return runHeadless(command, null as unknown as Infra, io());
  let infra: Infra;
  try {
    infra = openInfra(process.env);
  } catch (error) {
    if (error instanceof DatabaseError) {
      process.stderr.write(`grove: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  try {
    return await runHeadless(command, infra, io());
  } catch (error) {
    if (error instanceof UsageError) {
      error.command ??= command.kind;
      process.stderr.write(usageErrorText(error));
      return 2;
    }
    if (error instanceof CommandError) {
      process.stderr.write(`grove: ${sanitizeText(error.message)}\n`);
      return error.exitCode;
    }
    infra.logger.log('error', `grove ${command.kind} failed`, error);
    // A locked database and a full disk are said as such (storageFailure), not as SQLite's words.
    const message =
      storageFailure(error) ?? (error instanceof Error ? error.message : String(error));
    process.stderr.write(`grove: ${sanitizeText(message)}\n`);
    return 1;
  } finally {
    await shutdownContexts();
    await infra.db.close();
  }
}

/** Headless output is sanitized: no escape sequence reaches a terminal or a file from it. */
function io(): HeadlessIo {
  return {
    stdout: sanitizedOutput(process.stdout),
    stderr: sanitizedOutput(process.stderr),
    stdin: process.stdin,
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
  };
}

export interface StartHooks {
  /** Called once, after the TUI's first frame is on the screen. */
  readonly afterFirstFrame?: () => void;
  /** Called after each frame the TUI draws. */
  readonly onFrame?: () => void;
}

/** Runs Grove with the process's arguments; `prefetch` is a repository lookup the entry point started. */
export function start(prefetch: RepoRootPrefetch | null, hooks: StartHooks = {}): void {
  main(prefetch, hooks).catch((error: unknown) => {
    guardOutput();
    process.stderr.write(`grove: ${error instanceof Error ? error.message : String(error)}\n`);
    void exitWhenWritten(1);
  });
}
