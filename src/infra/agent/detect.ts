import { loadExeca } from '../exec.js';
import { PROVIDERS, type ProviderId } from '../../domain/providers.js';
import { delimiter, join } from 'node:path';
import { accessSync, constants } from 'node:fs';

export interface DetectedAgent {
  readonly id: ProviderId;
  readonly binary: string;
  readonly path: string | null;
  readonly version: string | null;
  readonly error?: string;
  /** Found on PATH but not asked its version yet (a look at start-up only finds the CLIs). */
  readonly unasked?: true;
}

/** The first executable `name` on PATH, or null. */
export function which(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** `--version` processes still running, ended when Grove exits (quit, SIGTERM, SIGHUP). */
const running = new Set<{ kill(signal: NodeJS.Signals): boolean }>();
let exitHooked = false;

async function endsWithGrove<T>(
  child: Promise<T> & { kill(signal: NodeJS.Signals): boolean },
): Promise<T> {
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const child of running) child.kill('SIGKILL');
    });
  }
  running.add(child);
  try {
    return await child;
  } finally {
    running.delete(child);
  }
}

/**
 * Finds the agent CLIs on PATH and, with `versions`, asks each for its
 * version (3 s each, in parallel). Never throws.
 */
export async function detectAgents(
  env: NodeJS.ProcessEnv,
  versions = true,
): Promise<DetectedAgent[]> {
  return Promise.all(
    PROVIDERS.map(async (provider): Promise<DetectedAgent> => {
      const path = which(provider.binary, env);
      if (!path) return { id: provider.id, binary: provider.binary, path: null, version: null };
      if (!versions)
        return { id: provider.id, binary: provider.binary, path, version: null, unasked: true };
      try {
        const { execa } = await loadExeca();
        const child = execa(path, ['--version'], {
          env: { ...env, GEMINI_CLI_NO_RELAUNCH: 'true' },
          timeout: 3000,
          reject: false,
          stdin: 'ignore',
          // At the timeout, SIGKILL: Gemini CLI, a large Node program, takes SIGTERM as a
          // request and went on for seconds, writing its state into HOME.
          killSignal: 'SIGKILL',
        });
        const result = await endsWithGrove(child);
        const text = `${String(result.stdout)}\n${String(result.stderr)}`;
        const version = /\d+\.\d+\.\d+[\w.-]*/.exec(text)?.[0] ?? null;
        return {
          id: provider.id,
          binary: provider.binary,
          path,
          version,
          ...(version
            ? {}
            : { error: result.timedOut ? '--version timed out' : 'no version reported' }),
        };
      } catch (error) {
        return {
          id: provider.id,
          binary: provider.binary,
          path,
          version: null,
          error: error instanceof Error ? error.message : String(error),
        };
      }
    }),
  );
}
