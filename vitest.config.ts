import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Two projects:
// - unit: pure tests, in worker threads sharing their module graph across
//   files (isolate: false), which spares re-importing src/ for every file.
// - system: integration and end-to-end tests (real git, SQLite, agent CLIs,
//   the built binary in tmux), each file in its own process.
// The system tests spend most of their time waiting on the processes they
// start, so one more worker than cores keeps the CPUs busy (Vitest's default
// is one fewer: a single worker on a 2-core machine). Every test keeps its
// state in its own temp folders, ports and processes, so files run side by
// side safely.
export default defineConfig({
  test: {
    maxWorkers: availableParallelism() + 1,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // Kills the tmux servers a test left running (test/global-tmux.ts).
    globalSetup: ['test/global-tmux.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx'],
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'system',
          // Everything else under test/, so no new folder is left out.
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [...configDefaults.exclude, 'test/unit/**'],
          pool: 'forks',
        },
      },
    ],
  },
});
