// `grove doctor`: checks everything Grove depends on, at once, and says how
// to fix each failure. Needs no project and opens the database read-only.
import type { GrovePaths } from '../infra/paths.js';
import { loadAcpAgents } from '../infra/agent/acp/agents-file.js';
import {
  checkAgents,
  checkClipboard,
  checkGit,
  checkGitHub,
  checkLimits,
  checkNode,
  checkSandbox,
  checkSqlite,
  checkTmux,
  fail,
  warn,
  type CheckContext,
  type CheckResult,
} from './doctor-checks.js';
import { checkDatabase, checkDisk, checkGroveHome } from './doctor-store.js';

export interface DoctorOptions {
  readonly json: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly paths: GrovePaths;
  readonly migrationsDir: string;
  readonly stdout: NodeJS.WritableStream;
  readonly signal?: AbortSignal;
}

/**
 * A check that has not answered by then is reported as such (its processes
 * are stopped). Longer than the longest wait of a check's own (an agent
 * CLI's `--version`, 20 s), so a slow tool is reported by its check, with
 * the lines beside it (agents.json's among the agents'), not as a silent check.
 */
const CHECK_TIMEOUT_MS = 25_000;

/** The checks in the order they are printed; each runs concurrently with the others. */
function checks(
  ctx: CheckContext,
  options: DoctorOptions,
): readonly (readonly [string, () => Promise<CheckResult | CheckResult[]> | CheckResult])[] {
  return [
    ['node', checkNode],
    ['sqlite', checkSqlite],
    ['git', () => checkGit(ctx)],
    ['agents', () => checkAgents(ctx)],
    ['github', () => checkGitHub(ctx)],
    ['grove-home', () => checkGroveHome(options.paths)],
    ['disk', () => checkDisk(options.paths)],
    ['database', () => checkDatabase(options.paths, options.migrationsDir)],
    ['sandbox', () => checkSandbox(ctx)],
    ['limits', checkLimits],
    ['tmux', () => checkTmux(ctx)],
    ['clipboard', () => checkClipboard(ctx)],
  ];
}

async function settle(
  name: string,
  run: () => Promise<CheckResult | CheckResult[]> | CheckResult,
  signal: AbortSignal,
): Promise<CheckResult[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckResult[]>((resolve) => {
    const give = (): void =>
      resolve([warn(name, `did not answer within ${CHECK_TIMEOUT_MS / 1000} s`, null)]);
    if (signal.aborted) give();
    signal.addEventListener('abort', give, { once: true });
    timer = setTimeout(give, CHECK_TIMEOUT_MS);
  });
  const answer = (async (): Promise<CheckResult[]> => {
    // Let the other checks start their processes before a synchronous one runs.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      const result = await run();
      return Array.isArray(result) ? result : [result];
    } catch (error) {
      return [
        fail(
          name,
          `the check itself failed: ${error instanceof Error ? error.message : String(error)}`,
          'report this as a Grove bug, with this output',
        ),
      ];
    }
  })();
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check and returns the results in a stable order. */
export async function runChecks(options: DoctorOptions): Promise<CheckResult[]> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const ctx: CheckContext = {
    env: options.env,
    signal,
    acpAgents: loadAcpAgents(options.paths.acpAgents),
  };
  try {
    const results = await Promise.all(
      checks(ctx, options).map(([name, run]) => settle(name, run, signal)),
    );
    return results.flat();
  } finally {
    // Ends whatever a timed-out check left running.
    stop.abort();
  }
}

/** After `Fix:` what to do; a note has nothing to fix, only what to do if wanted. */
function fixText(r: CheckResult): string {
  if (!r.fix) return '';
  if (r.status === 'note') return `. ${r.fix.charAt(0).toUpperCase()}${r.fix.slice(1)}`;
  return `. Fix: ${r.fix}`;
}

/** One line per check: status, name, what was found, and how to fix it (notes count as neither). */
export function formatText(results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.check.length));
  const lines = results.map(
    (r) =>
      `${r.status.padEnd(4)}  ${r.check.padEnd(width)}  ${r.detail.replace(/\.$/, '')}${fixText(r)}`,
  );
  const failed = results.filter((r) => r.status === 'fail').length;
  const warned = results.filter((r) => r.status === 'warn').length;
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const summary =
    failed > 0
      ? `${plural(failed, 'check')} failed${warned > 0 ? `, ${plural(warned, 'warning')}` : ''}.`
      : warned > 0
        ? `All is well (${plural(warned, 'warning')}).`
        : 'All is well.';
  return `${lines.join('\n')}\n\n${summary}\n`;
}

/** Runs `grove doctor`; resolves with the exit code (0 when nothing failed, warnings allowed). */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  const results = await runChecks(options);
  options.stdout.write(
    options.json ? `${JSON.stringify(results, null, 2)}\n` : formatText(results),
  );
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}
