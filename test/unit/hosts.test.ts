import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  destinationProblem,
  hostNameProblem,
  hostRootProblem,
  parseGitVersion,
  versionAtLeast,
} from '../../src/domain/host.js';
import { shellCommand, shellQuote } from '../../src/infra/hosts/quote.js';
import { sshArgs } from '../../src/infra/hosts/ssh.js';

// Host names, destinations and root folders (domain/host.ts), and the quoting
// of remote commands for a POSIX shell (infra/hosts/quote.ts), checked against
// the local dash and bash as well as by value.

const HOSTILE = [
  '',
  'plain',
  'two words',
  "it's",
  "'",
  "''",
  '"double"',
  '$HOME ${PATH} $(id) `id` $((1+1))',
  'a\nb\n',
  'tab\there',
  '\\n \\\\',
  '; & | > < * ? [a] ~ # ! {a,b}',
  '-n',
  '=ls',
  '~',
  'héllo ✓ 日本語',
];

describe('shellQuote', () => {
  it.each([
    ['plain', 'plain'],
    ['a/b.c-d_e:f@g%h+i,j=k', 'a/b.c-d_e:f@g%h+i,j=k'],
    ['', "''"],
    ["it's", "'it'\\''s'"],
    ['two words', "'two words'"],
    ['$HOME', "'$HOME'"],
    ['=ls', "'=ls'"],
    ['~', "'~'"],
  ])('quotes %j as %s', (word, quoted) => {
    expect(shellQuote(word)).toBe(quoted);
  });

  it('refuses a NUL, which no argument can hold', () => {
    expect(() => shellQuote('a\0b')).toThrow('NUL');
  });

  it.each(['sh', 'bash'])('gives %s back every word exactly', (shell) => {
    const out = execFileSync(shell, ['-c', shellCommand(['printf', '%s\\0', ...HOSTILE])], {
      encoding: 'utf8',
    });
    expect(out.split('\0').slice(0, -1)).toEqual(HOSTILE);
  });
});

describe('host names', () => {
  it.each(['build', 'gpu-1', 'a', 'x_y', '0box'])('accepts %j', (name) => {
    expect(hostNameProblem(name)).toBeNull();
  });

  it.each([
    ['', 'cannot be empty'],
    ['local', 'names this machine'],
    ['Build', 'not a host name'],
    ['-x', 'not a host name'],
    ['a b', 'not a host name'],
    ['a.b', 'not a host name'],
    ['x'.repeat(41), 'not a host name'],
    ['é', 'not a host name'],
  ])('refuses %j', (name, problem) => {
    expect(hostNameProblem(name)).toContain(problem);
  });
});

describe('destinations and root folders', () => {
  it.each(['me@build.example', 'build', 'coder.ws', 'me@[::1]', 'ssh://me@host:2222'])(
    'accepts the destination %j',
    (dest) => {
      expect(destinationProblem(dest)).toBeNull();
    },
  );

  it.each([
    ['-oProxyCommand=x', "starts with '-'"],
    ['', 'cannot be empty'],
    ['a b', 'white space'],
    ['a\nb', 'white space or control'],
    ['a\u001b[31m', 'control'],
  ])('refuses the destination %j', (dest, problem) => {
    expect(destinationProblem(dest)).toContain(problem);
  });

  it.each(['.grove-host', '~/grove', '~', '/srv/grove root'])('accepts the root %j', (root) => {
    expect(hostRootProblem(root)).toBeNull();
  });

  it.each([
    ['-x', "starts with '-'"],
    ['~other/x', "not another user's home"],
    ['a/../b', "holds '..'"],
    ['', 'cannot be empty'],
  ])('refuses the root %j', (root, problem) => {
    expect(hostRootProblem(root)).toContain(problem);
  });
});

describe('git versions', () => {
  it('reads git --version and compares with 2.38', () => {
    expect(parseGitVersion('git version 2.39.5')).toEqual([2, 39, 5]);
    expect(parseGitVersion('git version 2.50.1 (Apple Git-155)')).toEqual([2, 50, 1]);
    expect(parseGitVersion('sh: git: not found')).toBeNull();
    expect(versionAtLeast([2, 38, 0], [2, 38])).toBe(true);
    expect(versionAtLeast([2, 37, 9], [2, 38])).toBe(false);
    expect(versionAtLeast([3, 0, 0], [2, 38])).toBe(true);
  });
});

describe('ssh arguments', () => {
  it('keep BatchMode, sharing and no forwarding, and put -- before the destination and one command', () => {
    const args = sshArgs({ controlDir: '/g/ssh', configFile: null }, 'box', "printf '%s' x");
    for (const option of [
      'BatchMode=yes',
      'ControlMaster=auto',
      'ControlPath=/g/ssh/%C',
      'ControlPersist=60',
      'ServerAliveInterval=15',
      'ServerAliveCountMax=3',
      'ForwardAgent=no',
      'ForwardX11=no',
      'ClearAllForwardings=yes',
    ])
      expect(args).toContain(option);
    expect(args.slice(-3)).toEqual(['--', 'box', "printf '%s' x"]);
    expect(sshArgs({ controlDir: null, configFile: '/c' }, 'b', 'true').slice(0, 2)).toEqual([
      '-F',
      '/c',
    ]);
  });
});
