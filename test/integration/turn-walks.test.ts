import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { expectExit, reply } from './headless-harness.js';
import { h, helloTurn, setUpHeadlessRun } from './headless-run-world.js';

// How often a follow-up turn walks the whole tree (issue 26, item 1), read
// from git's own trace (GIT_TRACE2_EVENT) of a real `grove reply`: the built
// binary, the real Claude Code, the fake model server, a real repository.
// A walk is a git command that looks at every file of a checkout: a status,
// an `add -A`, a commit (it refreshes the index: every tracked file), an
// index refresh. The agent's own git (it gets no trace variable) is not counted.

setUpHeadlessRun();

/** What this test reads of `--output json` (headless-schema.ts checks the whole of it). */
interface Printed {
  sessionId: string;
  worktree: string;
  files: { path: string }[];
}

interface Traced {
  argv: string[];
  worktree: string | null;
}

/** The git processes of a GIT_TRACE2_EVENT file, each with the checkout it ran in. */
function gitProcesses(file: string): Traced[] {
  const bySid = new Map<string, Traced>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as {
      event: string;
      sid: string;
      argv?: string[];
      worktree?: string;
    };
    const traced = bySid.get(event.sid) ?? { argv: [], worktree: null };
    bySid.set(event.sid, traced);
    if (event.event === 'start' && event.argv) traced.argv = event.argv;
    if (event.event === 'def_repo' && event.worktree) traced.worktree = event.worktree;
  }
  return [...bySid.values()].filter((p) => p.argv.length > 0);
}

/** The git command of argv, after `-c key=value` pairs. */
function command(argv: readonly string[]): string[] {
  const args = argv.slice(1);
  while (args[0] === '-c') args.splice(0, 2);
  return args;
}

function walks(argv: readonly string[]): boolean {
  const [name = '', ...rest] = command(argv);
  if (name === 'status' || name === 'commit') return true;
  if (name === 'add') return rest.some((a) => a === '-A' || a === '--all' || a === '.');
  if (name === 'update-index') return rest.some((a) => a.endsWith('refresh'));
  return false;
}

describe('a follow-up turn', () => {
  it('walks the worktree once (the add -A it commits) and the main checkout not at all; its result takes the diff the commit measured', async () => {
    helloTurn('Greet the world');
    const first = await h.grove(['run', '--output', 'json', 'Greet the world']);
    expectExit(first, 0);
    const id = (JSON.parse(first.stdout) as Printed).sessionId;

    h.utilities('Add a greeting file', 'Extend the greeting\n\nAdds a second file.');
    h.server.script('anthropic', [
      {
        when: 'Greet again',
        toolCall: { kind: 'write_file', path: 'again.txt', content: 'again\n' },
      },
      { when: 'Greet again', text: reply('I added **again.txt**.') },
    ]);
    const trace = join(h.world.dir, 'trace2.json');
    const second = await h.grove(['reply', id, '--output', 'json', 'Greet again'], {
      env: { GIT_TRACE2_EVENT: trace },
    });
    expectExit(second, 0);
    const result = JSON.parse(second.stdout) as Printed;
    // The printed result is the committed diff: both files against the base.
    expect(result.files.map((f) => f.path).sort()).toEqual(['again.txt', 'hello.txt']);

    const worktree = realpathSync(result.worktree);
    const main = realpathSync(h.repo);
    const processes = gitProcesses(trace);
    const at = (dir: string) =>
      processes
        .filter((p) => p.worktree !== null && realpathSync(p.worktree) === dir)
        .filter((p) => walks(p.argv))
        .map((p) => command(p.argv).join(' '));
    expect(at(main)).toEqual([]);
    expect(at(worktree)).toEqual(['add -A']);
    // The session's one commit, amended, holds the turn's work under the new message.
    const branch = `grove/${id.slice(0, 8)}`;
    expect(git(h.repo, 'rev-list', '--count', `main..${branch}`)).toBe('1');
    expect(git(h.repo, 'show', '--name-only', '--format=', branch).split('\n').sort()).toEqual([
      'again.txt',
      'hello.txt',
    ]);
    expect(git(h.repo, 'log', '-1', '--format=%B', branch)).toBe(
      'Extend the greeting\n\nAdds a second file.',
    );
    expect(git(result.worktree, 'status', '--porcelain')).toBe('');
  });
});
