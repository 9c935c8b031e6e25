import { isAbsolute, relative, resolve } from 'node:path';
import { asRecord, asString } from './turn-parts.js';
import type { TurnEvent } from './channel.js';

// The agent's finished tool calls and commands as transcript entries: a
// one-line summary ("Ran: npm test (exit 1)", "Edited src/app.ts"), then
// the detail (the command's output tail, the files) on the next lines. The
// session view shows the first line and unfolds the rest on request. Paths
// read relative to the session's worktree (the same in every turn and every
// session); a path outside it stays absolute.

const MAX_DETAIL_LINES = 40;
const MAX_DETAIL_CHARS = 4000;
const MAX_SUMMARY = 160;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_SUMMARY ? `${flat.slice(0, MAX_SUMMARY - 1)}…` : flat;
}

/** A transcript entry: the summary line, then the detail's last lines. */
export function toolEntry(summary: string, detail = ''): string {
  const lines = detail.replace(/\s+$/, '').split('\n');
  const tail =
    lines.length > MAX_DETAIL_LINES
      ? [`… (${lines.length - MAX_DETAIL_LINES} earlier lines)`, ...lines.slice(-MAX_DETAIL_LINES)]
      : lines;
  const body = tail.join('\n').slice(-MAX_DETAIL_CHARS);
  return body.trim() === '' ? oneLine(summary) : `${oneLine(summary)}\n${body}`;
}

/** A path as the person reads it: relative to the worktree `cwd` when inside it, else absolute (resolved). */
export function worktreePath(path: string, cwd: string | null): string {
  if (cwd === null || cwd === '') return path;
  const full = resolve(cwd, path);
  const rel = relative(resolve(cwd), full);
  if (rel === '') return '.';
  return rel === '..' || rel.startsWith('../') || isAbsolute(rel) ? full : rel;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Text with the worktree's absolute path taken out: `/…/wt/src/a.ts` → `src/a.ts`, `cd /…/wt` → `cd .`. */
export function withoutWorktree(text: string, cwd: string | null): string {
  const root = cwd?.replace(/\/+$/, '') ?? '';
  if (root === '') return text;
  return text
    .split(`${root}/`)
    .join('')
    .replace(new RegExp(`${escapeRegExp(root)}(?![\\w.-])`, 'g'), '.');
}

/**
 * A finished tool call for the transcript: a tool line, or a `[Denied]` line
 * when the agent's CLI or Grove's sandbox refused a write (not "Wrote … (failed)").
 */
export type ToolReport = Extract<TurnEvent, { type: 'tool' | 'denied' }>;

const tool = (text: string): ToolReport => ({ type: 'tool', text });

/** Why a write failed, when something refused it rather than the write going wrong. */
export interface WriteRefusal {
  /** The agent's CLI (its permission rules, its workspace) or Grove's sandbox (a read-only or hidden path). */
  readonly by: 'cli' | 'sandbox';
  readonly reason: string;
}

/** Reads a failed write's error text: a refusal by the CLI or the sandbox, or null (another failure). */
export function writeRefusal(text: string): WriteRefusal | null {
  // Gemini CLI: "Path not in workspace: Attempted path … resolves outside the allowed workspace directories".
  if (/path not in workspace|outside the allowed workspace/i.test(text))
    return { by: 'cli', reason: 'it is outside the worktree' };
  // Claude Code: "Claude requested permissions to write to …, but you haven't granted it yet."
  if (
    /requested permissions? to|haven't granted|permission to use \S+ (has been|was) denied/i.test(
      text,
    )
  )
    return { by: 'cli', reason: "the session's permission mode does not allow it" };
  if (/\bEROFS\b|read-only file system/i.test(text))
    return { by: 'sandbox', reason: 'the path is read-only' };
  if (/\bEACCES\b|\bEPERM\b|permission denied|operation not permitted/i.test(text))
    return { by: 'sandbox', reason: 'the path may not be written' };
  return null;
}

/** The `[Denied]` line of a write something refused. */
export function refusedWriteLine(agentLabel: string, path: string, refusal: WriteRefusal): string {
  const who = refusal.by === 'cli' ? agentLabel : "Grove's sandbox";
  return `[Denied] ${agentLabel} asked to write ${path}; ${who} refused it: ${refusal.reason}.`;
}

/** The text of a tool result's content (a string or text blocks). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map(
      (c) =>
        asString(asRecord(c)['text']) ?? asString(asRecord(asRecord(c)['content'])['text']) ?? '',
    )
    .filter(Boolean)
    .join('\n');
}

/** A finished Claude Code tool call (its tool_use and the tool_result that answered it). */
export function claudeToolLine(
  name: string,
  input: Record<string, unknown> | undefined,
  result: { readonly is_error?: boolean | null; readonly content?: unknown },
  cwd: string | null = null,
): ToolReport | null {
  // The structured-output tool of --json-schema is the reply itself, not work.
  if (/structured/i.test(name)) return null;
  const failed = result.is_error === true;
  const given =
    asString(input?.['file_path']) ??
    asString(input?.['notebook_path']) ??
    asString(input?.['path']);
  const path = given === null ? null : worktreePath(given, cwd);
  const output = contentText(result.content);
  const status = failed ? ' (failed)' : '';
  switch (name) {
    case 'Bash':
      return tool(
        toolEntry(
          `Ran: ${withoutWorktree(asString(input?.['command']) ?? 'a command', cwd)}${failed ? ' (failed)' : ' (exit 0)'}`,
          output,
        ),
      );
    case 'Edit':
    case 'MultiEdit':
    case 'Write':
    case 'NotebookEdit': {
      const refusal = failed ? writeRefusal(output) : null;
      if (refusal)
        return { type: 'denied', text: refusedWriteLine('Claude Code', path ?? 'a file', refusal) };
      return tool(
        toolEntry(
          `${name === 'Write' ? 'Wrote' : 'Edited'} ${path ?? 'a file'}${status}`,
          failed ? output : '',
        ),
      );
    }
    case 'Read':
      return tool(toolEntry(`Read ${path ?? 'a file'}${status}`, failed ? output : ''));
    case 'Glob':
    case 'Grep':
      return tool(
        toolEntry(
          `Searched for ${asString(input?.['pattern']) ?? 'files'}${path ? ` in ${path}` : ''}${status}`,
          withoutWorktree(output, cwd),
        ),
      );
    default:
      return tool(toolEntry(`Used ${name}${status}`, output));
  }
}

/** A finished Codex item that did work (a command, a file change, a tool), from `item/completed`. */
export function codexToolLine(item: unknown, cwd: string | null = null): ToolReport | null {
  const it = asRecord(item);
  // Declined by Grove's answer to Codex's approval request, which already left a [Denied] line.
  if (asString(it['status']) === 'declined') return null;
  switch (it['type']) {
    case 'commandExecution': {
      const command = withoutWorktree(
        (asString(it['command']) ?? 'a command')
          .replace(/^\/bin\/(ba)?sh -lc /, '')
          .replace(/^(["'])(.*)\1$/s, '$2'),
        cwd,
      );
      const code = typeof it['exitCode'] === 'number' ? it['exitCode'] : null;
      const status = asString(it['status']);
      const outcome = code !== null ? `exit ${code}` : (status ?? 'ended');
      return tool(
        toolEntry(`Ran: ${command} (${outcome})`, asString(it['aggregatedOutput']) ?? ''),
      );
    }
    case 'fileChange': {
      const changes = Array.isArray(it['changes']) ? it['changes'].map(asRecord) : [];
      const paths = changes.map((c) => asString(c['path'])).filter((p): p is string => p !== null);
      const status = asString(it['status']);
      const outcome = status === 'completed' || status === null ? '' : ` (${status})`;
      return tool(
        toolEntry(
          `Edited ${paths.map((p) => worktreePath(p, cwd)).join(', ') || 'files'}${outcome}`,
          changes.map((c) => asString(c['diff']) ?? '').join('\n'),
        ),
      );
    }
    case 'mcpToolCall':
      return tool(
        toolEntry(
          `Used ${asString(it['server']) ?? 'a tool server'}/${asString(it['tool']) ?? 'a tool'}${asString(it['status']) === 'failed' ? ' (failed)' : ''}`,
        ),
      );
    case 'webSearch':
      return tool(toolEntry(`Searched the web for ${asString(it['query']) ?? 'something'}`));
    default:
      return null;
  }
}

/** An ACP tool call that finished (a tool_call or tool_call_update with status completed or failed), of Gemini CLI or the agent `label`. */
export function acpToolLine(
  update: unknown,
  known: { readonly title?: string | null; readonly kind?: string | null } = {},
  cwd: string | null = null,
  label = 'Gemini CLI',
): ToolReport | null {
  const u = asRecord(update);
  const status = asString(u['status']);
  if (status !== 'completed' && status !== 'failed') return null;
  const title = withoutWorktree(asString(u['title']) || known.title || 'a tool', cwd);
  const kind = asString(u['kind']) ?? known.kind ?? null;
  const content = Array.isArray(u['content']) ? u['content'].map(asRecord) : [];
  const detail = content
    .map((c) => {
      if (c['type'] !== 'diff') return contentText([c['content']]);
      const path = asString(c['path']);
      return path ? worktreePath(path, cwd) : '';
    })
    .filter(Boolean)
    .join('\n');
  const verb =
    kind === 'execute'
      ? 'Ran'
      : kind === 'edit'
        ? 'Edited'
        : kind === 'read'
          ? 'Read'
          : kind === 'search'
            ? 'Searched'
            : 'Used';
  const refusal = status === 'failed' && kind === 'edit' ? writeRefusal(detail) : null;
  if (refusal) {
    // The file it tried: Gemini CLI's error names it ("Attempted path …"), else the call's locations.
    const locations = Array.isArray(u['locations']) ? u['locations'].map(asRecord) : [];
    const tried =
      /Attempted path "([^"]+)"/.exec(detail)?.[1] ?? asString(locations[0]?.['path']) ?? null;
    return {
      type: 'denied',
      text: refusedWriteLine(label, tried ? worktreePath(tried, cwd) : 'a file', refusal),
    };
  }
  return tool(toolEntry(`${verb}: ${title}${status === 'failed' ? ' (failed)' : ''}`, detail));
}
