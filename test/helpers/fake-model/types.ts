import type { IncomingMessage, ServerResponse } from 'node:http';

export type ApiName = 'anthropic' | 'openai' | 'gemini';

/** One scripted model response, consumed by one model request of that API. */
export type ScriptStep =
  | { readonly text: string }
  | {
      readonly toolCall: {
        readonly kind: 'write_file';
        readonly path: string;
        readonly content: string;
      };
    }
  /** The CLI's shell tool (Claude `Bash`, Codex `exec_command`, Gemini `run_shell_command`), run in the workdir. */
  | {
      readonly toolCall: {
        readonly kind: 'shell';
        readonly command: string;
        /** Codex only: ask to run it outside the sandbox (`sandbox_permissions: require_escalated`). */
        readonly escalate?: boolean;
      };
    }
  /** Claude only: a call of a named tool the CLI offers (an MCP server's, `mcp__SERVER__TOOL`) with `input`. */
  | {
      readonly toolCall: {
        readonly kind: 'tool';
        readonly name: string;
        readonly input: Readonly<Record<string, unknown>>;
      };
    }
  | {
      readonly error: {
        readonly status: number;
        readonly body?: unknown;
        readonly headers?: Readonly<Record<string, string>>;
      };
    }
  | { readonly delayMs: number; readonly then: ScriptStep };

/** Anthropic's answer to a rejected API key (401): Claude Code ends the turn with an error. */
export const KEY_REJECTED: ScriptStep = {
  error: {
    status: 401,
    body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
  },
};

export interface HandlerContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly body: unknown;
  readonly step: ScriptStep | undefined;
  readonly workdir: string | undefined;
}

/** Tokens a response billed, as its wire format reports them. */
export interface Billed {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ApiHandler {
  readonly api: ApiName;
  /** What one response billed, read from the bytes sent (its usage fields in the API's own format). */
  billed(payloads: readonly Record<string, unknown>[]): Billed;
  matches(req: { method: string; path: string }): boolean;
  /** Requests that are side calls (not a model turn) do not consume a script step. */
  consumes?(req: { method: string; path: string }, body: unknown): boolean;
  handle(ctx: HandlerContext): void;
}

/** The reply used when a script runs dry: a valid protocol object. */
export const DEFAULT_REPLY = '{"answer":"ok","questions":[],"summary":null}';

export function sse(
  res: ServerResponse,
  events: readonly { event?: string; data: unknown }[],
  separator = '\n\n',
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const e of events)
    res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}${separator}`);
  res.end();
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const WORKDIR_PATTERNS: readonly RegExp[] = [
  /Primary working directory: ([^\s"\\]+)/, // Claude Code's environment block
  /<cwd>([^<]+)<\/cwd>/, // Codex's environment context
  /\*\*Workspace Directories:\*\*\\n\s*- ([^\s"\\]+)/, // Gemini CLI's session context
];

/** The agent's working directory as it tells its model, when the test did not set one. */
export function workdirFrom(body: unknown, fallback: string | undefined): string {
  if (fallback) return fallback;
  const text = JSON.stringify(body);
  for (const pattern of WORKDIR_PATTERNS) {
    const match = pattern.exec(text);
    if (match?.[1]) return match[1];
  }
  return process.cwd();
}

/** The JSON objects a response sent: each SSE `data:` line, or the whole JSON body. */
export function payloadsOf(text: string): Record<string, unknown>[] {
  const parse = (t: string): Record<string, unknown> | null => {
    try {
      const v: unknown = JSON.parse(t);
      return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };
  const lines = text.split(/\r?\n/).filter((l) => l.startsWith('data: '));
  if (lines.length === 0) {
    const whole = parse(text);
    return whole ? [whole] : [];
  }
  return lines.map((l) => parse(l.slice(6))).filter((v) => v !== null);
}
