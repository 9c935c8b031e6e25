import { describe, expect, it } from 'vitest';
import { agentEnvironment } from '../../src/infra/agent/confine/agent-env.js';
import {
  bubblewrapArgs,
  isForgeSecret,
  seatbeltArgs,
  seatbeltProfile,
  type ConfinementPlan,
} from '../../src/infra/agent/confine/sandbox.js';

const PLAN: ConfinementPlan = {
  cwd: '/home/u/.grove/wt/s1',
  writable: [
    '/home/u/.grove/wt/s1',
    '/tmp/grove-agent-x',
    '/home/u/project/.git',
    '/home/u/.claude',
  ],
  protect: ['/home/u/project/.git/hooks', '/home/u/project/.git/config'],
  hideDirs: ['/home/u/.config/gh'],
  hideFiles: ['/home/u/.git-credentials'],
};

/** The `--flag a b` triples of a bwrap command line, in order. */
function binds(args: readonly string[]): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    if (arg === '--bind' || arg === '--ro-bind' || arg === '--ro-bind-try')
      out.push(`${arg} ${args[i + 1] ?? ''} ${args[i + 2] ?? ''}`);
    if (arg === '--tmpfs') out.push(`${arg} ${args[i + 1] ?? ''}`);
  });
  return out;
}

describe('the agent environment', () => {
  it.each([
    ['GITHUB_TOKEN'],
    ['GH_TOKEN'],
    ['GH_ENTERPRISE_TOKEN'],
    ['GITHUB_ENTERPRISE_TOKEN'],
    ['GITLAB_TOKEN'],
    ['GL_TOKEN'],
    ['GITEA_TOKEN'],
    ['BITBUCKET_APP_PASSWORD'],
    ['GITHUB_PAT'],
    ['github_token'],
  ])('drops %s, even when the person asks for it', (name) => {
    expect(isForgeSecret(name)).toBe(true);
    expect(
      agentEnvironment(
        { PATH: '/bin', [name]: 'secret' },
        { provider: 'claude', args: [], home: '/h', passEnv: [name, 'GIT*'] },
      ),
    ).toEqual({ PATH: '/bin' });
  });

  it.each([['ANTHROPIC_API_KEY'], ['HOME'], ['GH_HOST'], ['GIT_AUTHOR_NAME'], ['TOKEN']])(
    'does not take %s for a forge credential',
    (name) => {
      expect(isForgeSecret(name)).toBe(false);
    },
  );
});

describe('the bubblewrap command line', () => {
  const args = bubblewrapArgs(PLAN, '/usr/bin/claude', ['-p', '--verbose']);

  it('makes the whole file system read-only before anything is made writable', () => {
    expect(binds(args)[0]).toBe('--ro-bind / /');
  });

  it('binds each writable path read-write, parents before children', () => {
    const writable = binds(args).filter((b) => b.startsWith('--bind '));
    expect(writable).toEqual([
      '--bind /tmp/grove-agent-x /tmp/grove-agent-x',
      '--bind /home/u/.claude /home/u/.claude',
      '--bind /home/u/project/.git /home/u/project/.git',
      '--bind /home/u/.grove/wt/s1 /home/u/.grove/wt/s1',
    ]);
  });

  it('binds git hooks and config read-only after the writable git folder, so they stay read-only', () => {
    const all = binds(args);
    const git = all.indexOf('--bind /home/u/project/.git /home/u/project/.git');
    expect(
      all.indexOf('--ro-bind-try /home/u/project/.git/hooks /home/u/project/.git/hooks'),
    ).toBeGreaterThan(git);
    expect(
      all.indexOf('--ro-bind-try /home/u/project/.git/config /home/u/project/.git/config'),
    ).toBeGreaterThan(git);
  });

  it('hides forge credentials on disk', () => {
    expect(binds(args)).toContain('--tmpfs /home/u/.config/gh');
    expect(binds(args)).toContain('--ro-bind /dev/null /home/u/.git-credentials');
  });

  it('ties the sandbox to its parent, keeps the host network and runs the command in the worktree', () => {
    expect(args).toContain('--die-with-parent');
    expect(args).toContain('--unshare-pid');
    expect(args.some((a) => a.startsWith('--unshare-net') || a === '--unshare-all')).toBe(false);
    expect(args.slice(-6)).toEqual([
      '--chdir',
      '/home/u/.grove/wt/s1',
      '--',
      '/usr/bin/claude',
      '-p',
      '--verbose',
    ]);
  });
});

describe('the bubblewrap command line with private folders', () => {
  const plan: ConfinementPlan = {
    cwd: '/home/u/.grove/wt/s1',
    writable: ['/home/u/.grove/wt/s1', '/tmp/grove-agent-x', '/tmp/r/project/.git'],
    protect: ['/tmp/r/project/.git/hooks'],
    hideDirs: ['/home/u/.grove', '/tmp/r/home/.ssh'],
    hideFiles: ['/tmp/r/home/.netrc'],
    privateDirs: ['/tmp', '/var/tmp', '/run/user/1000'],
    readable: ['/tmp/r/home', '/tmp/r/project'],
    hideSockets: ['/run/docker.sock'],
    network: { socketDir: '/tmp/grove-proxy-1', proxyPort: null, loopbackPorts: [] },
  };
  const all = binds(bubblewrapArgs(plan, '/usr/bin/claude', []));
  const at = (bind: string): number => {
    const index = all.indexOf(bind);
    expect(index, bind).toBeGreaterThanOrEqual(0);
    return index;
  };

  it('makes /tmp, /var/tmp and the runtime folder private before anything is bound into them', () => {
    expect(all[0]).toBe('--ro-bind / /');
    expect(all[1]).toBe('--tmpfs /tmp');
    expect(all).toContain('--tmpfs /var/tmp');
    expect(all).toContain('--tmpfs /run/user/1000');
    const inTmp = all.filter((b) => / \/tmp\//.test(b));
    expect(inTmp.length).toBeGreaterThan(5);
    for (const bind of inTmp) expect(at(bind)).toBeGreaterThan(1);
  });

  it('binds back what the agent reads read-only, its writable paths writable, the proxy socket folder', () => {
    expect(at('--ro-bind /tmp/r/home /tmp/r/home')).toBeGreaterThan(at('--tmpfs /tmp'));
    expect(at('--ro-bind /tmp/r/project /tmp/r/project')).toBeGreaterThan(at('--tmpfs /tmp'));
    expect(at('--bind /tmp/r/project/.git /tmp/r/project/.git')).toBeGreaterThan(
      at('--ro-bind /tmp/r/project /tmp/r/project'),
    );
    expect(at('--ro-bind-try /tmp/r/project/.git/hooks /tmp/r/project/.git/hooks')).toBeGreaterThan(
      at('--bind /tmp/r/project/.git /tmp/r/project/.git'),
    );
    expect(at('--bind /tmp/grove-agent-x /tmp/grove-agent-x')).toBeGreaterThan(at('--tmpfs /tmp'));
    expect(at('--ro-bind /tmp/grove-proxy-1 /tmp/grove-proxy-1')).toBeGreaterThan(
      at('--tmpfs /tmp'),
    );
  });

  it('hides secrets inside what is bound back, and GROVE_HOME but the worktree inside it', () => {
    expect(at('--tmpfs /tmp/r/home/.ssh')).toBeGreaterThan(at('--ro-bind /tmp/r/home /tmp/r/home'));
    expect(at('--ro-bind /dev/null /tmp/r/home/.netrc')).toBeGreaterThan(
      at('--ro-bind /tmp/r/home /tmp/r/home'),
    );
    expect(at('--bind /home/u/.grove/wt/s1 /home/u/.grove/wt/s1')).toBeGreaterThan(
      at('--tmpfs /home/u/.grove'),
    );
  });

  it('hides the host sockets', () => {
    expect(all).toContain('--ro-bind /dev/null /run/docker.sock');
  });
});

describe('the Seatbelt profile', () => {
  const profile = seatbeltProfile({
    ...PLAN,
    writable: [...PLAN.writable, '/tmp/a "quoted" \\ path'],
  });

  it('denies every write, then allows the writable paths and the terminal devices', () => {
    const lines = profile.split('\n');
    expect(lines.slice(0, 3)).toEqual(['(version 1)', '(allow default)', '(deny file-write*)']);
    expect(profile).toContain('(allow file-write*\n');
    for (const path of PLAN.writable) expect(profile).toContain(`(subpath "${path}")`);
    expect(profile).toContain('(literal "/dev/null")');
    expect(profile).toContain('(regex #"^/dev/tty")');
  });

  it('denies the protected paths after allowing the writable ones (the last matching rule wins)', () => {
    expect(
      profile.indexOf('(deny file-write*\n  (subpath "/home/u/project/.git/config")'),
    ).toBeGreaterThan(profile.indexOf('(allow file-write*'));
    expect(profile).toContain('(subpath "/home/u/project/.git/hooks")');
  });

  it('denies reading and writing the hidden credentials', () => {
    expect(profile).toContain(
      '(deny file-read* file-write*\n  (subpath "/home/u/.config/gh")\n  (literal "/home/u/.git-credentials"))',
    );
  });

  it('escapes quotes and backslashes in paths', () => {
    expect(profile).toContain('(subpath "/tmp/a \\"quoted\\" \\\\ path")');
  });

  it('keeps the host temporary folders unreadable but what the agent needs there, and hides sockets', () => {
    const text = seatbeltProfile({
      ...PLAN,
      writable: ['/private/var/folders/x/T/grove-agent-1', '/Users/u/wt'],
      privateDirs: ['/private/tmp', '/private/var/folders/x/T'],
      readable: ['/private/var/folders/x/T/r/home'],
      hideSockets: ['/private/var/run/docker.sock'],
    });

    const deny = text.indexOf(
      '(deny file-read-data\n  (subpath "/private/tmp")\n  (subpath "/private/var/folders/x/T"))',
    );
    expect(deny).toBeGreaterThan(0);
    const allow = text.indexOf('(allow file-read-data\n');
    expect(allow).toBeGreaterThan(deny);
    expect(text.slice(allow)).toContain('(subpath "/private/var/folders/x/T/r/home")');
    expect(text.slice(allow)).toContain('(subpath "/private/var/folders/x/T/grove-agent-1")');
    // With the host network: no unix socket in the temporary folders but in the writable paths.
    const sockets = text.indexOf(
      '(deny network-outbound\n  (remote unix-socket (subpath "/private/tmp"))',
    );
    expect(sockets).toBeGreaterThan(0);
    expect(text.indexOf('(allow network-outbound\n  (remote unix-socket (subpath')).toBeGreaterThan(
      sockets,
    );
    expect(
      text
        .trimEnd()
        .endsWith(
          '(deny network-outbound\n  (remote unix-socket (path-literal "/private/var/run/docker.sock")))',
        ),
    ).toBe(true);
  });

  it('is passed to sandbox-exec with -p before the command', () => {
    expect(seatbeltArgs(PLAN, '/usr/local/bin/codex', ['app-server'])).toEqual([
      '-p',
      seatbeltProfile(PLAN),
      '/usr/local/bin/codex',
      'app-server',
    ]);
  });
});
