import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface TmuxOptions {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly columns?: number;
  readonly rows?: number;
}

/** Whether `pid` is still running. An exited process nobody has reaped yet (a zombie, state Z) is gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/PID/stat: "pid (comm) state …"; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No /proc (macOS): the signal check is all there is.
    return true;
  }
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs a program in a real terminal: a private tmux server per instance,
 * one pane, keys sent with send-keys, the screen read with capture-pane.
 */
export class TmuxTerminal {
  private constructor(
    private readonly socket: string,
    private readonly stateDir: string,
  ) {}

  static async start(options: TmuxOptions): Promise<TmuxTerminal> {
    // Named after the test run, so the run's teardown finds what is left.
    const socket = `grove-test-${process.env['GROVE_TEST_RUN'] ?? 'x'}-${randomBytes(6).toString('hex')}`;
    const stateDir = mkdtempSync(join(tmpdir(), 'grove-tmux-'));
    const term = new TmuxTerminal(socket, stateDir);
    const envArgs = Object.entries(options.env).map(([k, v]) => `${k}=${shellQuote(v)}`);
    // `env -i` keeps the test's environment exact. The inner shell records its
    // pid and then becomes the program, so `pid()` is the program itself; the
    // outer shell records the exit status (tmux's own pane status is not
    // reliable across versions).
    const inner = `echo $$ > ${shellQuote(join(stateDir, 'pid'))}; exec env -i ${envArgs.join(' ')} ${options.command.map(shellQuote).join(' ')}`;
    const status = shellQuote(join(stateDir, 'status'));
    // The outer shell then stays (silently) so the screen keeps exactly what
    // the program left on it (tmux's remain-on-exit notice would scroll it).
    const command = `cd ${shellQuote(options.cwd)} && sh -c ${shellQuote(inner)}; echo $? > ${status}.tmp && mv ${status}.tmp ${status}; exec sleep 86400`;
    await term.tmux([
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'main',
      '-x',
      String(options.columns ?? 100),
      '-y',
      String(options.rows ?? 30),
      'sh',
      '-c',
      command,
    ]);
    return term;
  }

  async tmux(args: readonly string[]): Promise<string> {
    const { stdout } = await exec('tmux', ['-L', this.socket, ...args], {
      env: { ...process.env, TMUX: '' },
    });
    return stdout;
  }

  /** Keys in tmux's names: 'Enter', 'Escape', 'Tab', 'BTab', 'C-c', 'j', 'Down'. */
  async keys(...keys: string[]): Promise<void> {
    for (const key of keys) await this.tmux(['send-keys', '-t', 'main', key]);
  }

  /** Literal text, typed as keystrokes. */
  async type(text: string): Promise<void> {
    await this.tmux(['send-keys', '-t', 'main', '-l', text]);
  }

  /** Text delivered as one bracketed paste. */
  async paste(text: string): Promise<void> {
    await this.tmux(['set-buffer', '-b', 'grove', text]);
    await this.tmux(['paste-buffer', '-p', '-b', 'grove', '-t', 'main']);
  }

  async screen(): Promise<string> {
    return this.tmux(['capture-pane', '-p', '-t', 'main']);
  }

  /** The screen with its colours and attributes as SGR escape sequences (capture-pane -e). */
  async styledScreen(): Promise<string> {
    return this.tmux(['capture-pane', '-p', '-e', '-t', 'main']);
  }

  async format(name: string): Promise<string> {
    return (await this.tmux(['display-message', '-p', '-t', 'main', `#{${name}}`])).trim();
  }

  async resize(columns: number, rows: number): Promise<void> {
    await this.tmux(['resize-window', '-t', 'main', '-x', String(columns), '-y', String(rows)]);
  }

  /** Waits until the screen matches; fails with the last screen in the message. */
  async waitFor(pattern: string | RegExp, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = await this.screen();
      if (typeof pattern === 'string' ? last.includes(pattern) : pattern.test(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`Timed out waiting for ${String(pattern)}. Screen:\n${last}`);
  }

  async waitForGone(pattern: string | RegExp, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = await this.screen();
      if (!(typeof pattern === 'string' ? last.includes(pattern) : pattern.test(last))) return last;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`Timed out waiting for ${String(pattern)} to go away. Screen:\n${last}`);
  }

  /** Waits for the program to exit and returns its exit status. */
  async waitForExit(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      // The status file is written when the program has ended; then wait
      // until tmux has drawn the last of its output (two equal captures).
      const statusFile = join(this.stateDir, 'status');
      if (existsSync(statusFile)) {
        let previous = await this.screen();
        for (;;) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          const next = await this.screen();
          if (next === previous) break;
          previous = next;
        }
        return Number(readFileSync(statusFile, 'utf8').trim());
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`The program did not exit. Screen:\n${await this.screen()}`);
  }

  /** The program's process id (not the wrapping shell's). */
  async pid(): Promise<number> {
    const file = join(this.stateDir, 'pid');
    for (let i = 0; i < 100 && !existsSync(file); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return Number(readFileSync(file, 'utf8').trim());
  }

  /** Ends the terminal and waits (up to 5 s) until the program is gone, so nothing writes into a world being removed. */
  async kill(): Promise<void> {
    const pidFile = join(this.stateDir, 'pid');
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0;
    // Twice: once more if the first one failed (a busy machine). Whatever
    // still runs at the end of the test run is killed by test/global-tmux.ts.
    await this.tmux(['kill-server']).catch(() => this.tmux(['kill-server']).catch(() => {}));
    for (let i = 0; pid > 0 && i < 100 && isAlive(pid); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    rmSync(this.stateDir, { recursive: true, force: true });
  }
}
