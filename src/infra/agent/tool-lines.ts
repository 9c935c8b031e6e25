import { isAbsolute, relative, resolve } from 'node:path';
import { asRecord, asString } from './app-server.js';

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
): string | null {
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
      return toolEntry(
        `Ran: ${withoutWorktree(asString(input?.['command']) ?? 'a command', cwd)}${failed ? ' (failed)' : ' (exit 0)'}`,
        output,
      );
    case 'Edit':
    case 'MultiEdit':
    case 'Write':
    case 'NotebookEdit':
      return toolEntry(
        `${name === 'Write' ? 'Wrote' : 'Edited'} ${path ?? 'a file'}${status}`,
        failed ? output : '',
      );
    case 'Read':
      return toolEntry(`Read ${path ?? 'a file'}${status}`, failed ? output : '');
    case 'Glob':
    case 'Grep':
      return toolEntry(
        `Searched for ${asString(input?.['pattern']) ?? 'files'}${path ? ` in ${path}` : ''}${status}`,
        withoutWorktree(output, cwd),
      );
    default:
      return toolEntry(`Used ${name}${status}`, output);
  }
}

/** A finished Codex item that did work (a command, a file change, a tool), from `item/completed`. */
export function codexToolLine(item: unknown, cwd: string | null = null): string | null {
  const it = asRecord(item);
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
      const outcome =
        code !== null ? `exit ${code}` : status === 'declined' ? 'declined' : (status ?? 'ended');
      return toolEntry(`Ran: ${command} (${outcome})`, asString(it['aggregatedOutput']) ?? '');
    }
    case 'fileChange': {
      const changes = Array.isArray(it['changes']) ? it['changes'].map(asRecord) : [];
      const paths = changes.map((c) => asString(c['path'])).filter((p): p is string => p !== null);
      const status = asString(it['status']);
      const outcome = status === 'completed' || status === null ? '' : ` (${status})`;
      return toolEntry(
        `Edited ${paths.map((p) => worktreePath(p, cwd)).join(', ') || 'files'}${outcome}`,
        changes.map((c) => asString(c['diff']) ?? '').join('\n'),
      );
    }
    case 'mcpToolCall':
      return toolEntry(
        `Used ${asString(it['server']) ?? 'a tool server'}/${asString(it['tool']) ?? 'a tool'}${asString(it['status']) === 'failed' ? ' (failed)' : ''}`,
      );
    case 'webSearch':
      return toolEntry(`Searched the web for ${asString(it['query']) ?? 'something'}`);
    default:
      return null;
  }
}

/** A Gemini CLI tool call that finished (an ACP tool_call or tool_call_update with status completed or failed). */
export function geminiToolLine(
  update: unknown,
  known: { readonly title?: string | null; readonly kind?: string | null } = {},
  cwd: string | null = null,
): string | null {
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
  return toolEntry(`${verb}: ${title}${status === 'failed' ? ' (failed)' : ''}`, detail);
}
