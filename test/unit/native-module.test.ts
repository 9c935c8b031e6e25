import { describe, expect, it } from 'vitest';
import {
  classifyNativeLoadError,
  nativeLoadMessage,
  nodeForModuleVersion,
} from '../../src/infra/native-module.js';

// The loader messages below are copied from real runs: better-sqlite3 13
// with its binary removed or swapped, better-sqlite3 12's `bindings`
// lookup, and an addon compiled against Node 24's headers loaded by Node 22.

const PKG = '/home/me/grove/node_modules/better-sqlite3';
const NODE_22 = { version: 'v22.23.3', modules: '127' };

function loaderError(message: string, code?: string): Error {
  const error = new Error(message) as NodeJS.ErrnoException;
  if (code !== undefined) error.code = code;
  return error;
}

const ABI = loaderError(
  `The module '${PKG}/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 137. This version of Node.js requires\nNODE_MODULE_VERSION 127. Please try re-compiling or re-installing\nthe module (for instance, using \`npm rebuild\` or \`npm install\`).`,
  'ERR_DLOPEN_FAILED',
);

describe('classifyNativeLoadError', () => {
  it.each([
    ['an addon built for another Node (NODE_MODULE_VERSION)', ABI, 'abi_mismatch'],
    [
      'a missing binary (better-sqlite3 13: no prebuild, nothing compiled)',
      loaderError(
        `Cannot find module '${PKG}/build/Release/better_sqlite3.node'\nRequire stack:\n- ${PKG}/lib/binding.js\n- ${PKG}/lib/index.js`,
        'MODULE_NOT_FOUND',
      ),
      'missing_binary',
    ],
    [
      'a missing binary (better-sqlite3 12: bindings found none)',
      loaderError(
        `Could not locate the bindings file. Tried:\n → ${PKG}/build/better_sqlite3.node\n → ${PKG}/build/Release/better_sqlite3.node`,
      ),
      'missing_binary',
    ],
    [
      'a binary for another CPU (arm64 on x64)',
      loaderError(
        `${PKG}/prebuilds/linux-x64.node: cannot open shared object file: No such file or directory`,
        'ERR_DLOPEN_FAILED',
      ),
      'wrong_platform',
    ],
    [
      'a binary for another operating system',
      loaderError(`${PKG}/prebuilds/linux-x64.node: invalid ELF header`, 'ERR_DLOPEN_FAILED'),
      'wrong_platform',
    ],
    [
      'a truncated binary',
      loaderError(`${PKG}/prebuilds/linux-x64.node: file too short`, 'ERR_DLOPEN_FAILED'),
      'wrong_platform',
    ],
    [
      'a musl binary on glibc',
      loaderError(
        'libc.musl-x86_64.so.1: cannot open shared object file: No such file or directory',
        'ERR_DLOPEN_FAILED',
      ),
      'libc_mismatch',
    ],
    [
      'a binary needing a newer glibc',
      loaderError(
        `/lib/x86_64-linux-gnu/libc.so.6: version \`GLIBC_2.38' not found (required by ${PKG}/build/Release/better_sqlite3.node)`,
        'ERR_DLOPEN_FAILED',
      ),
      'libc_mismatch',
    ],
    [
      'an addon that does not register itself',
      loaderError(
        `Module did not self-register: '${PKG}/build/Release/better_sqlite3.node'.`,
        'ERR_DLOPEN_FAILED',
      ),
      'load_failed',
    ],
  ])('recognises %s', (_name, error, problem) => {
    const failure = classifyNativeLoadError(error, 'better-sqlite3', NODE_22);

    expect(failure?.problem).toBe(problem);
    expect(failure?.module).toBe('better-sqlite3');
  });

  it.each([
    ['a SQLite error', loaderError('unable to open database file', 'SQLITE_CANTOPEN')],
    [
      'a permission error',
      loaderError("EACCES: permission denied, open '/home/me/.grove/db/grove.db'", 'EACCES'),
    ],
    [
      'a missing JavaScript module',
      loaderError(
        "Cannot find module 'bindings'\nRequire stack:\n- /x/lib/database.js",
        'MODULE_NOT_FOUND',
      ),
    ],
    ['something that is not an Error', 'Cannot find module x.node'],
  ])('leaves %s alone', (_name, error) => {
    expect(classifyNativeLoadError(error, 'better-sqlite3', NODE_22)).toBeNull();
  });

  it('names the Node the binary was built for and the Node that is running', () => {
    const failure = classifyNativeLoadError(ABI, 'better-sqlite3', NODE_22);

    expect(failure?.builtFor).toBe('Node 24 (NODE_MODULE_VERSION 137)');
    expect(failure?.running).toBe('v22.23.3 (NODE_MODULE_VERSION 127)');
  });

  it('takes the module name from the path in the message', () => {
    const error = loaderError(
      '/srv/app/node_modules/@scope/native-thing/build/Release/x.node: invalid ELF header',
      'ERR_DLOPEN_FAILED',
    );

    expect(classifyNativeLoadError(error, 'better-sqlite3', NODE_22)?.module).toBe(
      '@scope/native-thing',
    );
  });
});

describe('nativeLoadMessage', () => {
  it('says which module, both Nodes and a command that fixes it, on one line', () => {
    const failure = classifyNativeLoadError(ABI, 'better-sqlite3', NODE_22);
    if (failure === null) throw new Error('not classified');

    const message = nativeLoadMessage(failure);

    expect(message).toContain("better-sqlite3's native module does not load");
    expect(message).toContain('built for Node 24 (NODE_MODULE_VERSION 137)');
    expect(message).toContain('this is Node v22.23.3 (NODE_MODULE_VERSION 127)');
    expect(message).toMatch(/Fix: .*`npm (ci|rebuild better-sqlite3)`/);
    expect(message).not.toContain('permissions');
    expect(message).not.toContain('\n');
  });
});

describe('nodeForModuleVersion', () => {
  it.each([
    [127, 'Node 22 (NODE_MODULE_VERSION 127)'],
    [137, 'Node 24 (NODE_MODULE_VERSION 137)'],
    [147, 'Node 26 (NODE_MODULE_VERSION 147)'],
    [999, 'NODE_MODULE_VERSION 999'],
  ])('maps %i to %s', (modules, text) => {
    expect(nodeForModuleVersion(modules)).toBe(text);
  });
});
