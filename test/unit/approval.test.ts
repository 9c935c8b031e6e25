import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  PERMISSION_MODES,
  nextPermissionMode,
  parsePermissionModeFlag,
  permissionModeFlag,
  permissionModeLabel,
  type PermissionMode,
} from '../../src/domain/permission-mode.js';
import {
  acpToolAsk,
  commandPaths,
  decideApproval,
  deniedLine,
  describeAsk,
  hardDenial,
  type ApprovalAsk,
} from '../../src/infra/agent/approval.js';
import { permissionArgs } from '../../src/infra/agent/claude/claude.js';
import { claudeToolAsk, controlResponse } from '../../src/infra/agent/claude/permission-prompt.js';
import { codexAsk, codexPolicy } from '../../src/infra/agent/codex/policy.js';
import { geminiModeId } from '../../src/infra/agent/gemini/gemini.js';

const WT = '/home/me/.grove/wt/project-1234abcd';
const MAIN = '/home/me/project';

const command = (over: Partial<Extract<ApprovalAsk, { kind: 'command' }>> = {}): ApprovalAsk => ({
  kind: 'command',
  command: 'npm test',
  cwd: WT,
  paths: [],
  escalation: false,
  ...over,
});
const edit = (paths: string[], grantRoot: string | null = null): ApprovalAsk => ({
  kind: 'edit',
  paths,
  grantRoot,
});

describe('permission modes', () => {
  it.each([
    ['auto_edit', 'Auto Edit', 'auto-edit', 'read_only'],
    ['read_only', 'Read Only', 'read-only', 'plan'],
    ['plan', 'Plan', 'plan', 'auto_edit'],
  ] as const)(
    '%s is shown as %s, spelled %s on the command line, and cycles to %s',
    (mode, label, flag, next) => {
      expect(permissionModeLabel(mode)).toBe(label);
      expect(permissionModeFlag(mode)).toBe(flag);
      expect(parsePermissionModeFlag(flag)).toBe(mode);
      expect(nextPermissionMode(mode)).toBe(next);
    },
  );

  it.each(['yolo', '', 'auto', 'read only'])('rejects the --mode value %j', (text) => {
    expect(parsePermissionModeFlag(text)).toBeNull();
  });
});

describe('decideApproval: mode × request × inside/outside × escalation', () => {
  const table: [PermissionMode, string, ApprovalAsk, boolean, RegExp | null][] = [
    // Auto Edit: inside the worktree only, never an escape from the sandbox.
    ['auto_edit', 'a command in the worktree', command(), true, null],
    ['auto_edit', 'a command in a worktree subfolder', command({ cwd: `${WT}/src` }), true, null],
    [
      'auto_edit',
      'a command in the main checkout',
      command({ cwd: MAIN }),
      false,
      /runs in \/home\/me\/project, outside the worktree/,
    ],
    [
      'auto_edit',
      'a command that names a path outside',
      command({ paths: ['../outside.txt'] }),
      false,
      /names \.\.\/outside\.txt, outside the worktree/,
    ],
    [
      'auto_edit',
      'a command that names the main checkout',
      command({ paths: [`${MAIN}/x`] }),
      false,
      /outside the worktree/,
    ],
    [
      'auto_edit',
      'a command that names /dev/null and /usr/bin',
      command({ paths: ['/dev/null', '/usr/bin/env'] }),
      true,
      null,
    ],
    [
      'auto_edit',
      'an escalated command in the worktree',
      command({ escalation: true }),
      false,
      /asked to run outside the sandbox/,
    ],
    [
      'auto_edit',
      'an escalated command outside',
      command({ escalation: true, cwd: MAIN }),
      false,
      /outside the sandbox/,
    ],
    ['auto_edit', 'an edit in the worktree', edit([`${WT}/src/a.ts`]), true, null],
    ['auto_edit', 'a relative edit in the worktree', edit(['src/a.ts']), true, null],
    [
      'auto_edit',
      'an edit in the main checkout',
      edit([`${MAIN}/src/a.ts`]),
      false,
      /writes \/home\/me\/project\/src\/a\.ts, outside the worktree/,
    ],
    ['auto_edit', 'an edit through ..', edit([`${WT}/../x`]), false, /outside the worktree/],
    ['auto_edit', 'an edit of unknown files', edit([]), false, /not known/],
    [
      'auto_edit',
      'an edit granting a root outside',
      edit([`${WT}/a`], '/'),
      false,
      /write access to \//,
    ],
    ['auto_edit', 'an edit granting the worktree', edit([], WT), true, null],
    [
      'auto_edit',
      'more permissions',
      { kind: 'permissions', what: 'network access' },
      false,
      /no permissions beyond the worktree/,
    ],
    ['auto_edit', 'a read', { kind: 'read', what: 'use web_fetch' }, true, null],
    // Read Only and Plan: nothing that asks, except reads.
    ...(['read_only', 'plan'] as const).flatMap(
      (mode): [PermissionMode, string, ApprovalAsk, boolean, RegExp | null][] => {
        const why = new RegExp(`the session is in ${permissionModeLabel(mode)} mode`);
        return [
          [mode, 'a command in the worktree', command(), false, why],
          [mode, 'an escalated command', command({ escalation: true }), false, why],
          [mode, 'a command outside', command({ cwd: MAIN }), false, why],
          [mode, 'an edit in the worktree', edit([`${WT}/a.ts`]), false, why],
          [mode, 'an edit outside', edit([`${MAIN}/a.ts`]), false, why],
          [mode, 'more permissions', { kind: 'permissions', what: 'network access' }, false, why],
          [mode, 'a read', { kind: 'read', what: 'use read_file' }, true, null],
        ];
      },
    ),
  ];

  it.each(table)('%s: %s → allowed %s', (mode, _what, ask, allowed, reason) => {
    const decision = decideApproval(mode, WT, ask);

    expect(decision.allow).toBe(allowed);
    if (!decision.allow && reason) expect(decision.reason).toMatch(reason);
  });
});

describe('commandPaths', () => {
  it.each([
    ['printf x > ../outside.txt', ['../outside.txt']],
    ['cd .. && touch x', ['..']],
    [`python3 -c "open('${MAIN}/x','w')"`, [`${MAIN}/x`]],
    ['cat ~/.ssh/id_rsa', [`${homedir()}/.ssh/id_rsa`]],
    ['npm test -- --watch=false', []],
    ['ls src/app', []],
    ['node ./scripts/build.js', ['./scripts/build.js']],
  ])('finds the paths %j names', (line, paths) => {
    expect(commandPaths(line)).toEqual(paths);
  });
});

describe('the denial line', () => {
  it('says who asked what, and why Grove denied it', () => {
    const ask = command({ command: "/bin/bash -lc 'printf x > ../out'", escalation: true });
    const decision = decideApproval('auto_edit', WT, ask);

    const line = deniedLine('Codex', describeAsk(ask), decision.allow ? '' : decision.reason);

    expect(line).toBe(
      `[Denied] Codex asked to run \`/bin/bash -lc 'printf x > ../out'\` in ${WT}; Grove denied it: it asked to run outside the sandbox.`,
    );
  });
});

describe('the denial line, with paths relative to the worktree', () => {
  it('names no folder for a command in the worktree, and files by their path in it', () => {
    const run = command({ command: `printf x > ${WT}/../out`, cwd: WT, escalation: true });

    expect(describeAsk(run, WT)).toBe(`run \`printf x > ../out\``);
    expect(describeAsk(command({ command: 'ls', cwd: `${WT}/src` }), WT)).toBe('run `ls` in src');
    expect(describeAsk(edit([`${WT}/src/a.ts`, '/etc/hosts']), WT)).toBe(
      'edit src/a.ts, /etc/hosts',
    );
  });
});

describe('Claude Code flags per mode', () => {
  const request = (permissionMode: PermissionMode) => ({
    permissionMode,
    cwd: WT,
    mainCheckout: MAIN,
  });

  it('Read Only offers only the read tools and asks nothing', () => {
    expect(permissionArgs(request('read_only'))).toEqual([
      '--permission-mode',
      'dontAsk',
      '--tools',
      'Read,Glob,Grep,WebSearch,WebFetch',
      '--allowedTools',
      'Read,Glob,Grep,WebSearch,WebFetch',
    ]);
  });

  it('Read Only that holds requests offers Bash and the edit tools, allows the reads, and asks about every shell or edit use', () => {
    const args = permissionArgs(request('read_only'), true);

    expect(args.slice(0, 2)).toEqual(['--permission-mode', 'default']);
    expect((args[args.indexOf('--tools') + 1] ?? '').split(',')).toEqual(
      expect.arrayContaining(['Read', 'Bash', 'Write', 'Edit']),
    );
    expect(args[args.indexOf('--allowedTools') + 1]).toBe('Read,Glob,Grep,WebSearch,WebFetch');
    const settings = JSON.parse(args[args.indexOf('--settings') + 1] ?? '{}') as {
      permissions: { ask: string[] };
    };
    expect(settings.permissions.ask).toEqual(expect.arrayContaining(['Bash', 'Write', 'Edit']));
  });

  it('Plan runs in Claude Code plan mode with the read tools', () => {
    expect(permissionArgs(request('plan')).slice(0, 2)).toEqual(['--permission-mode', 'plan']);
    expect(permissionArgs(request('plan'))).toContain('Read,Glob,Grep,WebSearch,WebFetch');
  });

  it('Auto Edit accepts edits with the worktree as the only added dir, edit tools allowed only there, the main checkout denied', () => {
    const args = permissionArgs(request('auto_edit'));

    expect(args.slice(0, 4)).toEqual(['--permission-mode', 'acceptEdits', '--add-dir', WT]);
    const allowed = (args[args.indexOf('--allowedTools') + 1] ?? '').split(',');
    expect(allowed).toContain(`Write(/${WT}/**)`);
    expect(allowed).not.toContain('Write');
    expect(allowed).not.toContain('Edit');
    const settings = JSON.parse(args[args.indexOf('--settings') + 1] ?? '{}') as {
      permissions: { deny: string[] };
    };
    expect(settings.permissions.deny).toContain(`Edit(/${MAIN}/**)`);
  });
});

describe('Claude Code permission requests as asks', () => {
  it('Bash is a command in the worktree with the paths its line names; an edit names its file from the worktree', () => {
    expect(claudeToolAsk('Bash', { command: 'cat ../x > out' }, WT)).toEqual({
      kind: 'command',
      command: 'cat ../x > out',
      cwd: null,
      paths: ['../x'],
      escalation: false,
    });
    expect(claudeToolAsk('Write', { file_path: 'src/a.ts', content: '' }, WT)).toEqual({
      kind: 'edit',
      paths: [`${WT}/src/a.ts`],
      grantRoot: null,
    });
  });

  it('a read tool is a read; a tool Grove does not know asks for more permissions, which Grove never grants', () => {
    expect(claudeToolAsk('Grep', { pattern: 'x' }, WT).kind).toBe('read');
    const task = claudeToolAsk('Task', { prompt: 'x' }, WT);
    expect(task.kind).toBe('permissions');
    expect(hardDenial(WT, task)).toBe('Grove grants no permissions beyond the worktree');
  });

  it('a running-outside-the-sandbox Bash use and an edit into .git are never held', () => {
    const escaping = claudeToolAsk('Bash', { command: 'ls', dangerouslyDisableSandbox: true }, WT);
    expect(decideApproval('auto_edit', WT, escaping)).toMatchObject({ allow: false });
    expect(hardDenial(WT, claudeToolAsk('Edit', { file_path: '.git/config' }, WT))).toMatch(
      /outside what the agent may write/,
    );
  });

  it('the answer is a control_response of the request, allow with the input or deny with words', () => {
    expect(
      JSON.parse(controlResponse('r1', { behavior: 'allow', updatedInput: { command: 'ls' } })),
    ).toEqual({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: 'r1',
        response: { behavior: 'allow', updatedInput: { command: 'ls' } },
      },
    });
    expect(JSON.parse(controlResponse('r2', { behavior: 'deny', message: 'no' }))).toMatchObject({
      response: { request_id: 'r2', response: { behavior: 'deny', message: 'no' } },
    });
  });
});

describe('Codex requests as asks', () => {
  it('a command approval is an escalation with its command and cwd', () => {
    const ask = codexAsk(
      'item/commandExecution/requestApproval',
      {
        kind: 'command',
        command: "/bin/bash -lc 'rm -rf x'",
        cwd: WT,
        reason: 'needs network',
        commandActions: [
          { type: 'read', command: 'cat /etc/passwd', name: 'passwd', path: '/etc/passwd' },
        ],
      },
      () => [],
    );

    expect(ask).toEqual({
      kind: 'command',
      command: "/bin/bash -lc 'rm -rf x'",
      cwd: WT,
      paths: ['/etc/passwd'],
      escalation: true,
    });
  });

  it('a file-change approval takes its paths from the item it names', () => {
    const ask = codexAsk(
      'item/fileChange/requestApproval',
      { itemId: 'call_1', grantRoot: null },
      (id) => (id === 'call_1' ? [`${WT}/a.ts`] : []),
    );

    expect(ask).toEqual({ kind: 'edit', paths: [`${WT}/a.ts`], grantRoot: null });
  });

  it('the legacy requests map too', () => {
    expect(
      codexAsk('execCommandApproval', { command: ['touch', 'x'], cwd: MAIN }, () => []),
    ).toMatchObject({ kind: 'command', command: 'touch x', cwd: MAIN, escalation: true });
    expect(
      codexAsk(
        'applyPatchApproval',
        { fileChanges: { [`${MAIN}/a`]: {} }, grantRoot: null },
        () => [],
      ),
    ).toEqual({ kind: 'edit', paths: [`${MAIN}/a`], grantRoot: null });
  });

  it.each([
    ['auto_edit', 'workspace-write'],
    ['read_only', 'read-only'],
    ['plan', 'read-only'],
  ] as const)('%s runs the thread in the %s sandbox, asking on request', (mode, sandbox) => {
    expect(codexPolicy(mode)).toEqual({ approvalPolicy: 'on-request', sandbox });
  });
});

describe('Gemini tool calls as asks', () => {
  it('a shell command carries its working directory and the paths it names', () => {
    const ask = acpToolAsk({
      kind: 'execute',
      title: 'printf x > ../outside.txt',
      content: [
        {
          type: 'content',
          content: { type: 'text', text: `[current working directory ${WT}] (Run a command)` },
        },
      ],
      locations: [],
    });

    expect(ask).toEqual({
      kind: 'command',
      command: 'printf x > ../outside.txt',
      cwd: WT,
      paths: ['../outside.txt'],
      escalation: false,
    });
  });

  it('an edit carries its file once', () => {
    const ask = acpToolAsk({
      kind: 'edit',
      title: 'Writing to a.ts',
      content: [{ type: 'diff', path: `${WT}/a.ts` }],
      locations: [{ path: `${WT}/a.ts` }],
    });

    expect(ask).toEqual({ kind: 'edit', paths: [`${WT}/a.ts`], grantRoot: null });
  });

  it('an unknown kind of tool is a request for more permissions (denied)', () => {
    expect(acpToolAsk({ kind: 'other', title: 'save_memory' })).toEqual({
      kind: 'permissions',
      what: 'permission for save_memory',
    });
  });

  it.each(PERMISSION_MODES)('%s maps to an ACP session mode', (mode) => {
    expect(geminiModeId(mode)).toBe(mode === 'plan' ? 'plan' : 'default');
  });
});
