// The repository's own commit hooks, when the person wants them
// (setting git.hooks). Grove's git never runs a hook itself (simple.ts):
// hooks are files an agent can write. When the setting asks for them, the
// caller passes a HookRunner that runs them inside the agent's sandbox
// (app/services/git-hooks.ts), and Grove's commit asks it before committing.

export type CommitHook = 'pre-commit' | 'commit-msg';

export interface HookOutcome {
  readonly exitCode: number;
  /** What the hook printed (its reason when it refuses). */
  readonly output: string;
  /** The message after `commit-msg` (which may edit it); for pre-commit, the message given. */
  readonly message: string;
}

/** Runs one hook of the repository in `dir` with the commit's message. */
export type HookRunner = (hook: CommitHook, message: string) => Promise<HookOutcome>;

/** The hook's reason in one line: its last line of output. */
export function hookReason(output: string): string {
  const lines = output.split('\n').filter((l) => l.trim() !== '');
  return lines.at(-1) ?? 'no output';
}
