// What `grove host check` asks a host, in one remote command over the shared
// connection: a POSIX sh script that reports facts as tab-separated lines
// (git's version, each agent CLI on PATH and its version, the sign-in files
// and variables it can see, bubblewrap, Grove's root folder and its free
// disk). It reads only; it creates Grove's root folder when missing. No value
// of a variable is printed, only the names of those that are set.
import type { Host } from '../../domain/host.js';
import { PROVIDERS, type BuiltinProviderId } from '../../domain/providers.js';

const BUILTIN_PROVIDER_IDS: readonly BuiltinProviderId[] = PROVIDERS.map((p) => p.id);
import { shellCommand } from './quote.js';
import { sshFailure, type Ssh, type SshFailure } from './ssh.js';

/** The files and variables each CLI signs in with (as `grove doctor` reads them locally). */
export const SIGN_IN: Readonly<
  Record<BuiltinProviderId, { files: string[]; variables: string[] }>
> = {
  claude: {
    files: ['${CLAUDE_CONFIG_DIR:-$HOME/.claude}/.credentials.json'],
    variables: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
  },
  codex: {
    files: ['${CODEX_HOME:-$HOME/.codex}/auth.json'],
    variables: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  },
  gemini: {
    files: ['$HOME/.gemini/oauth_creds.json'],
    variables: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  },
};

function signInLines(): string {
  return BUILTIN_PROVIDER_IDS.flatMap((id) => [
    ...SIGN_IN[id].files.map((file) => `if [ -s "${file}" ]; then emit signin ${id} "${file}"; fi`),
    ...SIGN_IN[id].variables.map(
      (name) => `if [ -n "\${${name}:-}" ]; then emit signin ${id} '$${name}'; fi`,
    ),
  ]).join('\n');
}

/** The script; $1 is Grove's root folder on the host. */
export function probeScript(): string {
  return `root=$1
case $root in "~") root=$HOME ;; "~/"*) root=$HOME/\${root#??} ;; esac
emit() { (IFS=$(printf '\t'); printf '%s\\n' "$*"); }
emit user "$(id -un 2>/dev/null)"
emit home "$HOME"
emit path "$PATH"
if command -v git >/dev/null 2>&1; then emit git "$(git --version 2>&1 | head -n 1)"; else emit git ''; fi
t=
if command -v timeout >/dev/null 2>&1; then t='timeout 20'; fi
for c in ${BUILTIN_PROVIDER_IDS.join(' ')}; do
  p=$(command -v "$c" 2>/dev/null) || p=
  v=
  if [ -n "$p" ]; then v=$(GEMINI_CLI_NO_RELAUNCH=true $t "$p" --version </dev/null 2>&1 | head -n 1); fi
  emit agent "$c" "$p" "$v"
done
${signInLines()}
if command -v bwrap >/dev/null 2>&1; then
  emit bwrap "$(bwrap --version 2>&1 | head -n 1)"
  emit bwrap-runs "$( (bwrap --ro-bind / / --dev /dev true </dev/null 2>&1 && echo yes) | head -n 1)"
else
  emit bwrap ''
fi
if command -v node >/dev/null 2>&1; then emit node "$(node --version 2>&1 | head -n 1)"; else emit node ''; fi
if mkdir -p -- "$root" 2>/dev/null && [ -d "$root" ] && [ -w "$root" ]; then
  emit root ok "$(cd -- "$root" && pwd -P)"
  emit df "$(df -Pk -- "$root" 2>/dev/null | tail -n 1)"
else
  emit root no "$root"
fi
`;
}

export interface AgentFacts {
  readonly id: BuiltinProviderId;
  /** Where `command -v` found it on the host; null when it is not on PATH. */
  readonly path: string | null;
  /** The first line of its `--version`, else null. */
  readonly versionLine: string | null;
  /** What it signs in with that the host has: files and `$VARIABLES` (names only). */
  readonly signIn: readonly string[];
}

export interface HostFacts {
  readonly user: string;
  readonly home: string;
  /** The PATH a remote command gets (where the agent CLIs are looked for). */
  readonly path: string;
  /** `git --version`'s first line; '' when git is not on PATH. */
  readonly git: string;
  readonly agents: readonly AgentFacts[];
  /** `bwrap --version`'s first line; '' when bubblewrap is not on PATH. */
  readonly bwrap: string;
  /** 'yes' when bubblewrap ran a command for this user, else what it said. */
  readonly bwrapRuns: string;
  /** `node --version`'s first line ('' when not on PATH): the network filter's relay on the host runs in it. */
  readonly node: string;
  /** Grove's root folder: its real path when writable, else as given. */
  readonly root: { readonly writable: boolean; readonly path: string };
  /** Free bytes on the root folder's disk; null when unknown. */
  readonly freeBytes: number | null;
}

/** The probe's lines as facts. */
export function parseProbe(stdout: string): HostFacts {
  const rows = stdout.split('\n').map((line) => line.split('\t'));
  const value = (key: string): string =>
    rows
      .find((r) => r[0] === key)
      ?.slice(1)
      .join('\t') ?? '';
  const agents = BUILTIN_PROVIDER_IDS.map((id): AgentFacts => {
    const row = rows.find((r) => r[0] === 'agent' && r[1] === id);
    return {
      id,
      path: row?.[2] ? row[2] : null,
      versionLine: row?.[3] ? row[3] : null,
      signIn: rows.filter((r) => r[0] === 'signin' && r[1] === id).map((r) => r[2] ?? ''),
    };
  });
  const root = rows.find((r) => r[0] === 'root');
  const df = /\s(\d+)\s+(\d+)\s+(\d+)\s+\d+%\s/.exec(` ${value('df')} `);
  return {
    user: value('user'),
    home: value('home'),
    path: value('path'),
    git: value('git'),
    agents,
    bwrap: value('bwrap'),
    bwrapRuns: value('bwrap-runs'),
    node: value('node'),
    root: { writable: root?.[1] === 'ok', path: root?.[2] ?? '' },
    freeBytes: df ? Number(df[3]) * 1024 : null,
  };
}

export type ProbeResult =
  | { readonly ok: true; readonly facts: HostFacts }
  | { readonly ok: false; readonly failure: SshFailure };

/** Logs in (BatchMode) and runs the probe; a login failure comes back in words. */
export async function probeHost(ssh: Ssh, host: Host, signal?: AbortSignal): Promise<ProbeResult> {
  const command = shellCommand(['sh', '-c', probeScript(), 'grove-host-check', host.root]);
  const run = await ssh.run(host.destination, command, {
    timeoutMs: 90_000,
    ...(signal ? { signal } : {}),
  });
  const failure = sshFailure(run, host.destination);
  if (failure) return { ok: false, failure };
  if (run.code !== 0)
    return {
      ok: false,
      failure: {
        reason: `the check's script failed on ${host.destination} (exit ${String(run.code)}): ${run.stderr.trim().split('\n')[0] ?? ''}`,
        fix: "the host user's login shell must run POSIX sh commands (sh, bash, dash, zsh or ksh)",
      },
    };
  return { ok: true, facts: parseProbe(run.stdout) };
}
