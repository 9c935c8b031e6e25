// The V8 flags Grove sets once the TUI's first frame is out (main.ts, settleMemory),
// each set only where this V8 has it. V8 answers a flag it does not know by
// writing "Error: unrecognized flag" straight to the terminal (its own stderr,
// past Node's streams, over the frame), so a flag is never passed on a guess.
// Node's own modules only, taken when called: the entry point loads this file.

/** The flags, in the order they are set (why: main.ts, settleMemory). */
export const MEMORY_FLAGS: readonly string[] = [
  '--semi-space-growth-factor=1',
  '--heap-growing-percent=25',
  '--expose-gc',
];

/**
 * The V8 majors whose flags are known to include all of MEMORY_FLAGS: those of
 * the pinned Node.js versions (22: V8 12, 24: V8 13, 26: V8 14), which
 * test/e2e/memory-flags.test.ts runs. On another V8, this V8's own list is asked first.
 */
export const CHECKED_V8_MAJORS: readonly number[] = [12, 13, 14];

export interface MemoryFlagsDeps {
  /** process.versions.v8, e.g. "13.6.233.17-node.53". */
  readonly v8Version: string;
  /** v8.setFlagsFromString. */
  readonly set: (flag: string) => void;
  /** The flag names this V8 knows (`node --v8-options`), or null when that cannot be told. */
  readonly knownFlags: () => Promise<ReadonlySet<string> | null>;
}

/** The flag's name as `--v8-options` lists it: "--heap-growing-percent=25" → "heap-growing-percent". */
export function flagName(flag: string): string {
  return flag
    .replace(/^--(no-)?/, '')
    .replace(/=.*$/, '')
    .replace(/_/g, '-');
}

/** The flag names in `node --v8-options` output (lines "  --name (description)"). */
export function parseV8Options(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^\s+--([A-Za-z0-9_-]+)/gm))
    names.add(match[1]!.replace(/_/g, '-'));
  return names;
}

/**
 * Sets each of `flags` this V8 knows; returns the flags set. On a V8 not
 * checked, none is set unless its own list names it (and none when the list
 * cannot be had). A flag whose setting throws is left out; the others are set.
 */
export async function setMemoryFlags(
  deps: MemoryFlagsDeps,
  flags: readonly string[] = MEMORY_FLAGS,
): Promise<string[]> {
  const major = Number.parseInt(deps.v8Version, 10);
  let known: ReadonlySet<string> | null = null;
  if (!CHECKED_V8_MAJORS.includes(major)) {
    known = await deps.knownFlags().catch(() => null);
    if (known === null) return [];
  }
  const set: string[] = [];
  for (const flag of flags) {
    if (known !== null && !known.has(flagName(flag))) continue;
    try {
      deps.set(flag);
      set.push(flag);
    } catch {
      // A V8 that refuses it keeps its default.
    }
  }
  return set;
}

/** This Node's V8 flag names, from `node --v8-options` (about 0.1–0.3 s of another process). */
export function nodeV8Flags(): Promise<ReadonlySet<string> | null> {
  const { execFile } = process.getBuiltinModule('node:child_process');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--v8-options'],
      { timeout: 10_000, maxBuffer: 4 * 1024 * 1024, env: {} },
      (error, stdout) => resolve(error ? null : parseV8Options(String(stdout))),
    );
  });
}

/**
 * Test hook (GROVE_MEMORY_FLAGS_TEST=FILE, test/e2e/memory-flags.test.ts):
 * in this process, with the flags set, allocates a burst of short-lived
 * objects (some surviving a scavenge or two, as a frame's do), and writes to
 * FILE the young generation's size before and after, with the flags set.
 */
export function reportYoungGeneration(file: string, flags: readonly string[]): void {
  const { getHeapSpaceStatistics } = process.getBuiltinModule('node:v8');
  const { writeFileSync } = process.getBuiltinModule('node:fs');
  const youngSize = (): number =>
    getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? -1;
  const before = youngSize();
  let kept: object[] = [];
  for (let i = 0; i < 2_000_001; i++) {
    kept.push({ i, pair: [i, i] });
    if (kept.length >= 100_000) kept = [];
  }
  const after = youngSize();
  writeFileSync(
    file,
    JSON.stringify({ node: process.versions.node, flags, before, after, kept: kept.length }),
  );
}
