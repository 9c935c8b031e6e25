import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_HIDDEN_PATHS } from '../../src/domain/agent-exposure.js';
import {
  exposurePlan,
  socketsNamedBy,
  type ExposureInput,
} from '../../src/infra/agent/confine/host-exposure.js';

// What the launcher takes away from an agent, on a real folder layout under
// /tmp: the private folders, what is bound back into them (following a CLI
// linked into a PATH folder to its node_modules), the hidden secrets and
// sockets.

let dir: string;
let home: string;
let server: Server | null = null;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-exposure-')));
  home = join(dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'key\n');
  writeFileSync(join(home, '.netrc'), 'netrc\n');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(home, '.codex'), { recursive: true });
  mkdirSync(join(dir, 'pkg', 'node_modules', '.bin'), { recursive: true });
  mkdirSync(join(dir, 'pkg', 'node_modules', 'tool'));
  writeFileSync(join(dir, 'pkg', 'node_modules', 'tool', 'cli.js'), '');
  symlinkSync('../tool/cli.js', join(dir, 'pkg', 'node_modules', '.bin', 'tool'));
  mkdirSync(join(dir, 'bin'));
  symlinkSync(join(dir, 'pkg', 'node_modules', '.bin', 'tool'), join(dir, 'bin', 'tool'));
  mkdirSync(join(dir, 'grove-home', 'wt', 's1'), { recursive: true });
  mkdirSync(join(dir, 'unrelated'));
});

afterEach(async () => {
  if (server) await new Promise((done) => server?.close(done));
  server = null;
  rmSync(dir, { recursive: true, force: true });
});

function input(extra: Partial<ExposureInput> = {}): ExposureInput {
  return {
    provider: 'codex',
    platform: 'linux',
    hostEnv: { HOME: home },
    agentEnv: { HOME: home, PATH: `${join(dir, 'bin')}:/usr/bin:/bin` },
    home,
    groveHome: join(dir, 'grove-home'),
    hiddenPaths: DEFAULT_HIDDEN_PATHS,
    command: join(dir, 'bin', 'tool'),
    args: [],
    mainCheckout: null,
    writable: [join(dir, 'grove-home', 'wt', 's1'), join(home, '.codex')],
    ...extra,
  };
}

describe('what an agent is kept from', () => {
  it('makes /tmp private and binds back HOME, the PATH folder and the node_modules its CLI links into', () => {
    const plan = exposurePlan(input(), 1000);

    expect(plan.privateDirs).toContain('/tmp');
    const targets = plan.readable.map((b) => b.target);
    expect(targets).toEqual(
      expect.arrayContaining([home, join(dir, 'bin'), join(dir, 'pkg', 'node_modules')]),
    );
    // Only what the agent needs: not the folder around them, not the writable worktree.
    expect(targets).not.toContain(dir);
    expect(targets).not.toContain(join(dir, 'unrelated'));
    expect(targets).not.toContain(join(dir, 'grove-home', 'wt', 's1'));
  });

  it('hides the secrets, GROVE_HOME and the other CLIs’ folders, but not its own', () => {
    const plan = exposurePlan(input(), 1000);

    expect(plan.hideDirs).toEqual(
      expect.arrayContaining([join(home, '.ssh'), join(dir, 'grove-home'), join(home, '.claude')]),
    );
    expect(plan.hideFiles).toContain(join(home, '.netrc'));
    expect(plan.hideDirs).not.toContain(join(home, '.codex'));
  });

  it('hides the sockets Grove’s environment names', async () => {
    const socket = join(dir, 'tmux.sock');
    server = createServer();
    await new Promise<void>((done) => server?.listen(socket, done));

    const plan = exposurePlan(input({ hostEnv: { HOME: home, TMUX: `${socket},1,0` } }), 1000);

    expect(plan.hideSockets).toContain(socket);
  });

  it('reads the socket paths of tmux, ssh-agent, D-Bus, Docker, gpg-agent, Wayland and X11', () => {
    expect(
      socketsNamedBy({
        TMUX: '/tmp/tmux-1/default,12,0',
        SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1',
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1/bus,guid=x',
        DOCKER_HOST: 'unix:///run/user/1/docker.sock',
        GPG_AGENT_INFO: '/h/.gnupg/S.gpg-agent:0:1',
        XDG_RUNTIME_DIR: '/run/user/1',
        WAYLAND_DISPLAY: 'wayland-0',
        DISPLAY: ':1',
      }),
    ).toEqual([
      '/tmp/tmux-1/default',
      '/tmp/ssh-x/agent.1',
      '/h/.gnupg/S.gpg-agent',
      '/run/user/1/bus',
      '/run/user/1/docker.sock',
      '/run/user/1/wayland-0',
      '/tmp/.X11-unix/X1',
    ]);
  });
});
