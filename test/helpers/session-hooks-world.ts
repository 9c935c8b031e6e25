// The session-hook tests' world (test/integration/session-hooks*.test.ts): a
// review world (review-world.ts) whose project's hook is a trusted recorder
// that writes each run's GROVE_* variables as one JSON line.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { Session } from '../../src/domain/session.js';
import { SESSION_HOOK_KEYS } from '../../src/domain/session-hook.js';
import { makeReviewWorld, type ReviewWorld } from './review-world.js';

/** The variables a hook run gets for `session` (GROVE_HOME aside), as docs/usage/inbox.md lists them. */
export async function hookVars(
  w: ReviewWorld,
  session: Session,
  event: { event: string; detail: string; status: string },
): Promise<Record<string, string | undefined>> {
  const project = await w.infra.store.projects.get(w.projectId);
  return {
    GROVE_EVENT: event.event,
    GROVE_EVENT_DETAIL: event.detail,
    GROVE_SESSION_ID: session.id,
    GROVE_SESSION_TITLE: session.title,
    GROVE_SESSION_STATUS: event.status,
    GROVE_BRANCH: session.branch,
    GROVE_WORKTREE: session.worktreePath,
    GROVE_PROJECT_PATH: project?.path,
    GROVE_PROJECT_NAME: project?.displayName,
  };
}

/** A run's variables without those of the world's own environment (GROVE_HOME, the GitHub stand-in's URL). */
export function ownVars(w: ReviewWorld, run: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(run).filter(([name]) => !(name in w.env)));
}

export interface HookWorld {
  readonly w: ReviewWorld;
  /** Sets the project's hook command, trusted or confined, with a time limit when given. */
  readonly setHook: (command: string, trusted: boolean, timeout?: string) => Promise<void>;
  /** The GROVE_* variables of each run of the recorder so far, in order. */
  readonly recorded: () => Record<string, string>[];
}

/** Registers the file's hooks: a fresh world with the recorder as its hook before each test. */
export function setUpHookWorld(options: { github?: boolean } = {}): HookWorld {
  let w: ReviewWorld | undefined;
  let records = '';
  const world = (): ReviewWorld => {
    if (!w) throw new Error('the hook world is not made yet');
    return w;
  };
  const setHook = async (command: string, trusted: boolean, timeout?: string): Promise<void> => {
    const { settings } = world().infra.store;
    const { projectId } = world();
    await settings.setProject(projectId, SESSION_HOOK_KEYS.command, command);
    await settings.setProject(projectId, SESSION_HOOK_KEYS.trusted, trusted ? 'on' : 'off');
    if (timeout) await settings.setProject(projectId, SESSION_HOOK_KEYS.timeout, timeout);
  };
  beforeEach(async () => {
    w = await makeReviewWorld(options);
    records = join(w.world.dir, 'hook-records.jsonl');
    const recorder = join(w.world.dir, 'record.cjs');
    writeFileSync(
      recorder,
      `const vars = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('GROVE_')));
require('fs').appendFileSync(process.argv[2], JSON.stringify(vars) + '\\n');\n`,
    );
    await setHook(`'${process.execPath}' '${recorder}' '${records}'`, true);
  });
  afterEach(async () => {
    await w?.controller.shutdown();
    await w?.close();
    w = undefined;
  });
  return {
    get w() {
      return world();
    },
    setHook,
    recorded: () => {
      if (!existsSync(records)) return [];
      return readFileSync(records, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, string>);
    },
  };
}
