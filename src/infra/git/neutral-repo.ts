import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, gitOut, type RunResult } from './run.js';

// Where Grove reads the diffs it shows for review: a bare repository of its
// own, made for the one diff, that borrows the real object store.
//
// git decides how to show a file from its attributes, and the agent writes
// the files they come from: `.gitattributes` in its worktree (or in the
// trees it commits) and `<common>/info/attributes`. `* -diff`, `binary` or a
// diff driver's name would show code as "Binary files differ", hiding what
// changed. Here none reaches the diff:
// - the repository is bare, so git reads no `.gitattributes` at all, neither
//   from a work tree nor from the trees it compares (git 2.39: a bare
//   repository reads attributes only from the files below);
// - its `info/attributes` is its own (absent), not the shared one;
// - `core.attributesFile` is /dev/null and GIT_ATTR_NOSYSTEM is set, so the
//   person's global and the system attributes files are not read either;
// - it has no refs, so no `refs/replace/` object swaps a blob for another.
// What is binary is then git's own rule on the content alone: a NUL byte in
// the first 8,000 bytes. Diffs name their two sides by object id.

/** A checkout's object store and hash, as git itself resolves them there. */
export interface ObjectStore {
  readonly objects: string;
  readonly format: string;
}

export async function objectStoreOf(dir: string, signal?: AbortSignal): Promise<ObjectStore> {
  const out = await gitOut(
    ['rev-parse', '--path-format=absolute', '--git-path', 'objects', '--show-object-format'],
    { cwd: dir, signal },
  );
  const [objects = '', format = 'sha1'] = out.split('\n');
  return { objects, format };
}

export interface NeutralRepo {
  run(args: readonly string[], signal?: AbortSignal, input?: string): Promise<RunResult>;
}

function config(format: string): string {
  const sha1 = format === 'sha1';
  return [
    '[core]',
    `\trepositoryformatversion = ${sha1 ? 0 : 1}`,
    '\tbare = true',
    '\tattributesFile = /dev/null',
    // Names as they are (the sanitizer makes them safe), a/ and b/ prefixes as the parser expects.
    '\tquotePath = false',
    '[diff]',
    '\tnoprefix = false',
    '\tmnemonicPrefix = false',
    '\trelative = false',
    ...(sha1 ? [] : ['[extensions]', `\tobjectFormat = ${format}`]),
    '',
  ].join('\n');
}

/** Runs `fn` with a fresh attribute-free repository over `store`, removed afterwards. */
export async function withNeutralRepo<T>(
  store: ObjectStore,
  fn: (repo: NeutralRepo) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'grove-review-'));
  try {
    await Promise.all([mkdir(join(dir, 'refs')), mkdir(join(dir, 'objects'))]);
    await Promise.all([
      writeFile(join(dir, 'HEAD'), 'ref: refs/heads/review\n'),
      writeFile(join(dir, 'config'), config(store.format)),
    ]);
    const env = {
      GIT_DIR: dir,
      GIT_OBJECT_DIRECTORY: store.objects,
      GIT_ATTR_NOSYSTEM: '1',
      GIT_NO_REPLACE_OBJECTS: '1',
    };
    return await fn({
      run: (args, signal, input) =>
        git(args, { cwd: dir, env, ...(signal ? { signal } : {}), ...(input ? { input } : {}) }),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
