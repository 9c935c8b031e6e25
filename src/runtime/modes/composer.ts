import type { Mode } from '../../app/state.js';
import { sessionById } from '../../app/state.js';
import {
  applyEdit,
  bufferFrom,
  emptyBuffer,
  insertText,
  type TextBuffer,
} from '../../domain/composer.js';
import {
  acceptCompletion,
  completionCount,
  completionFor,
  moveSelection,
  noAssist,
  ISSUE_PICKS,
  type ComposerAssist,
  type IssuePick,
} from '../../domain/composer-assist.js';
import { pickIssues } from '../../domain/issue.js';
import type { Key } from '../../domain/keys.js';
import { actionFor } from '../../domain/key-lookup.js';
import { pastedImagePath } from '../../domain/mentions.js';
import { nextPermissionMode } from '../../domain/permission-mode.js';
import { newerEntry, olderEntry, searchHistory } from '../../domain/prompt-history.js';
import { assertNever } from '../../domain/assert-never.js';
import {
  acpAgentIds,
  parseSlash,
  type SlashAction,
  type SlashContext,
} from '../../domain/slash-commands.js';
import { hostPickProblem, knownHosts } from '../../domain/host.js';
import { agentName, providerInfo } from '../../domain/providers.js';
import type { Session } from '../../domain/session.js';
import type { KeyContext } from './context.js';
import { editBuffer } from './input.js';

/** The most sessions `alt+n` fans a new session's prompt out to (more with `grove run -n`). */
const MAX_COMPOSER_VARIANTS = 4;

type SessionMode = Extract<Mode, { kind: 'session' }>;

/** The session mode with the composer closed (no picker, no attachments). */
function closed(mode: SessionMode): SessionMode {
  const { assist: _assist, ...rest } = mode;
  return { ...rest, composer: null };
}

function update(
  ctx: KeyContext,
  mode: SessionMode,
  composer: TextBuffer,
  assist: ComposerAssist,
): void {
  ctx.apply({ type: 'mode', mode: { ...mode, composer, assist } });
}

/** After an edit: the picker follows the text, the history position and the error line go. */
function edited(
  ctx: KeyContext,
  mode: SessionMode,
  session: Session,
  buffer: TextBuffer,
  assist: ComposerAssist,
): void {
  const files =
    ctx.state.fileIndex?.worktree === session.worktreePath ? ctx.state.fileIndex.files : null;
  const completion = completionFor(buffer, assist.completion, files, slashContext(ctx, session));
  // The file list is listed on the first `@` (and refreshed when it is old); the app drops repeated asks.
  if (completion?.kind === 'file' && (assist.completion?.kind !== 'file' || !files))
    ctx.intents.loadFiles(session.id);
  update(ctx, mode, buffer, { ...assist, completion, history: null, error: null });
}

/** An agent's name as the person knows it (Codex, an ACP agent's own name). */
function nameOf(id: string): string {
  return providerInfo(id)?.name ?? agentName(id);
}

/** What the composer's commands choose from for this session: its agent's models, the agents, the hosts. */
function slashContext(ctx: KeyContext, session: Session): SlashContext {
  return {
    agent: session.agent,
    acpAgents: acpAgentIds(ctx.state.agents),
    hosts: knownHosts(ctx.state.settings),
    newSession: session.prompt === null,
  };
}

/**
 * A command that changes the session (/model, /agent, /reasoning, /mode,
 * /host, /review, /clear) leaves the composer open and empty, so the task typed next
 * goes into it, never to the session view's keys; one that opens another view
 * or a confirmation (/diff, /merge, /publish) closes it.
 */
function runSlash(
  ctx: KeyContext,
  mode: SessionMode,
  session: Session,
  action: SlashAction,
  assist: ComposerAssist,
): void {
  const staysOpen = !['diff', 'merge', 'publish'].includes(action.name);
  ctx.apply({
    type: 'mode',
    mode: staysOpen
      ? {
          ...mode,
          composer: emptyBuffer,
          assist: { ...assist, completion: null, history: null, error: null },
          scrollBack: 0,
        }
      : { ...closed(mode), scrollBack: 0 },
  });
  switch (action.name) {
    case 'model':
      ctx.intents.changeSessionChoice(session.id, { model: action.model });
      return;
    case 'agent':
      ctx.intents.changeSessionChoice(session.id, { agent: action.agent });
      return;
    case 'reasoning':
      ctx.intents.changeSessionChoice(session.id, { reasoning: action.reasoning });
      return;
    case 'mode':
      ctx.intents.setPermissionMode(session.id, action.mode);
      return;
    case 'host':
      ctx.intents.changeSessionChoice(session.id, { host: action.host });
      return;
    case 'ci-fixer':
      ctx.intents.setCiFixer(session.id, action.own);
      return;
    case 'review':
      ctx.intents.regenerateReview(session.id);
      return;
    case 'diff':
      ctx.intents.openDiff(session.id);
      return;
    case 'merge':
      ctx.intents.requestMerge(session.id);
      return;
    case 'publish':
      ctx.intents.requestPublish(session.id);
      return;
    case 'clear':
      ctx.intents.clearContext(session.id);
      return;
    default:
      assertNever(action);
  }
}

/** Enter: a command runs, an unknown one leaves an error line (and the text); a prompt is sent. */
function send(
  ctx: KeyContext,
  mode: SessionMode,
  session: Session,
  buffer: TextBuffer,
  assist: ComposerAssist,
): void {
  const text = buffer.text.trim();
  if (text === '' && assist.images.length === 0) return;
  const parsed = parseSlash(text, slashContext(ctx, session));
  const bestOf = session.prompt === null ? (mode.bestOf ?? 1) : 1;
  // Where it runs: only the built-in agent CLIs on a host, the host chosen before the first prompt (the line says why, nothing runs).
  const problem =
    parsed.kind === 'prompt'
      ? hostPickProblem(session, { kind: 'prompt', bestOf }, nameOf)
      : parsed.kind === 'run' && parsed.action.name === 'host'
        ? hostPickProblem(session, { kind: 'host', host: parsed.action.host }, nameOf)
        : parsed.kind === 'run' && parsed.action.name === 'agent'
          ? hostPickProblem(session, { kind: 'agent', agent: parsed.action.agent }, nameOf)
          : null;
  if (problem !== null) {
    update(ctx, mode, buffer, { ...assist, completion: null, error: problem });
    return;
  }
  switch (parsed.kind) {
    case 'run':
      runSlash(ctx, mode, session, parsed.action, assist);
      return;
    case 'error':
      update(ctx, mode, buffer, { ...assist, completion: null, error: parsed.message });
      return;
    case 'prompt':
      ctx.apply({ type: 'mode', mode: { ...closed(mode), scrollBack: 0 } });
      if ((mode.bestOf ?? 1) > 1 && session.prompt === null)
        ctx.intents.sendBestOf(session.id, text, mode.bestOf ?? 1);
      else if (assist.images.length > 0)
        ctx.intents.sendPrompt(session.id, text || 'See the attached image.', assist.images);
      else ctx.intents.sendPrompt(session.id, text);
      return;
    default:
      assertNever(parsed);
  }
}

/** Ctrl+S in a new session: the prompt is kept as a draft session, started later from the list. */
function saveDraftSession(
  ctx: KeyContext,
  mode: SessionMode,
  session: Session | undefined,
  buffer: TextBuffer,
  assist: ComposerAssist,
): void {
  const text = buffer.text.trim();
  if (!session || text === '') return;
  if (session.status !== 'Draft' || session.prompt !== null) {
    update(ctx, mode, buffer, {
      ...assist,
      completion: null,
      error: 'Only a new session can be saved as a draft (Enter sends this prompt).',
    });
    return;
  }
  ctx.apply({ type: 'mode', mode: { kind: 'list' } });
  ctx.apply({ type: 'selectSession', sessionId: session.id });
  ctx.intents.saveDraftSession(session.id, text);
}

/** Esc: an empty composer closes (an unstarted session with it); text is kept as the draft, after asking. */
function cancel(
  ctx: KeyContext,
  mode: SessionMode,
  session: Session | undefined,
  buffer: TextBuffer,
): void {
  if (session && buffer.text.trim() !== '') {
    ctx.apply({
      type: 'popup',
      popup: {
        kind: 'confirm',
        title: 'Close the composer?',
        lines: [
          "The text is kept as this session's draft and comes back when you open the composer again.",
          'To throw it away, delete it first (Ctrl+U).',
        ],
        intent: { kind: 'closeComposer', sessionId: session.id, text: buffer.text },
        yes: true,
      },
    });
    return;
  }
  ctx.apply({ type: 'mode', mode: closed(mode) });
  if (!session) return;
  if (session.id in ctx.state.drafts) ctx.intents.saveDraft(session.id, '');
  if (session.prompt === null && session.status === 'Draft')
    ctx.intents.discardUnstarted(session.id);
}

/** Up/Down outside a picker: the project's prompt history when the prompt is empty or shows an entry. */
function browseHistory(
  ctx: KeyContext,
  mode: SessionMode,
  buffer: TextBuffer,
  assist: ComposerAssist,
  step: 'older' | 'newer',
): boolean {
  const history = ctx.state.promptHistory;
  const browsing = assist.history !== null && buffer.text === history[assist.history];
  if (!browsing && buffer.text !== '') return false;
  const at = browsing ? assist.history : null;
  if (step === 'older') {
    const next = olderEntry(history, at);
    if (next === null) return true;
    update(ctx, mode, bufferFrom(history[next] ?? ''), {
      ...assist,
      history: next,
      completion: null,
      error: null,
    });
    return true;
  }
  if (at === null) return false;
  const next = newerEntry(history, at);
  update(ctx, mode, next === null ? emptyBuffer : bufferFrom(history[next] ?? ''), {
    ...assist,
    history: next,
    completion: null,
    error: null,
  });
  return true;
}

function handleSearchKey(
  ctx: KeyContext,
  mode: SessionMode,
  buffer: TextBuffer,
  assist: ComposerAssist,
  key: Key,
  id: string,
): void {
  const search = assist.search;
  if (!search) return;
  const history = ctx.state.promptHistory;
  const action = actionFor('historySearch', id);
  switch (action) {
    case 'older':
      update(ctx, mode, buffer, {
        ...assist,
        search: {
          ...search,
          at: searchHistory(history, search.query, search.at ?? history.length) ?? search.at,
        },
      });
      return;
    case 'accept': {
      const found = search.at === null ? null : history[search.at];
      update(ctx, mode, found === undefined || found === null ? search.before : bufferFrom(found), {
        ...assist,
        search: null,
        history: null,
      });
      return;
    }
    case 'cancel':
      update(ctx, mode, search.before, { ...assist, search: null });
      return;
    case 'erase': {
      const query = Array.from(search.query).slice(0, -1).join('');
      update(ctx, mode, buffer, {
        ...assist,
        search: { ...search, query, at: searchHistory(history, query) },
      });
      return;
    }
    case undefined:
      if (key.text !== undefined && !key.ctrl && !key.alt) {
        const query = search.query + key.text;
        update(ctx, mode, buffer, {
          ...assist,
          search: { ...search, query, at: searchHistory(history, query) },
        });
      }
      return;
    default:
      assertNever(action);
  }
}

/** Keys while the issue picker is open: typing filters, arrows move, Enter starts, Esc closes. */
function handleIssueKey(
  ctx: KeyContext,
  mode: SessionMode,
  session: Session | undefined,
  buffer: TextBuffer,
  assist: ComposerAssist,
  pick: IssuePick,
  key: Key,
  id: string,
): void {
  const list = ctx.state.issueList;
  const items =
    list?.status === 'ready'
      ? pickIssues(list.issues, pick.query, list.viewer).slice(0, ISSUE_PICKS)
      : [];
  const set = (next: IssuePick | null) => update(ctx, mode, buffer, { ...assist, issues: next });
  if (id === 'escape') return set(null);
  if (id === 'up' || id === 'ctrl+p' || id === 'down' || id === 'ctrl+n') {
    if (items.length === 0) return;
    const step = id === 'up' || id === 'ctrl+p' ? -1 : 1;
    return set({ ...pick, selected: (pick.selected + step + items.length) % items.length });
  }
  if (id === 'enter') {
    const chosen = items[pick.selected];
    if (!chosen || !session) return;
    ctx.apply({ type: 'mode', mode: { ...closed(mode), scrollBack: 0 } });
    ctx.intents.startFromIssue(session.id, chosen.number, buffer.text.trim());
    return;
  }
  const next = editBuffer(bufferFrom(pick.query), key);
  if (next && !next.text.includes('\n')) set({ query: next.text, selected: 0 });
}

export function handleComposerKey(
  ctx: KeyContext,
  mode: SessionMode,
  buffer: TextBuffer,
  key: Key,
  id: string,
): void {
  const session = sessionById(ctx.state, mode.sessionId);
  const assist = mode.assist ?? noAssist;
  if (assist.search) return handleSearchKey(ctx, mode, buffer, assist, key, id);
  if (assist.issues)
    return handleIssueKey(ctx, mode, session, buffer, assist, assist.issues, key, id);
  const completion = assist.completion;
  // An open picker has the arrows, Tab, Enter and Esc.
  if (completion && session) {
    const count = completionCount(completion);
    if (count > 0 && (id === 'up' || id === 'ctrl+p' || id === 'down' || id === 'ctrl+n')) {
      update(ctx, mode, buffer, {
        ...assist,
        completion: moveSelection(completion, id === 'up' || id === 'ctrl+p' ? -1 : 1),
      });
      return;
    }
    if (id === 'escape') {
      update(ctx, mode, buffer, { ...assist, completion: null });
      return;
    }
    if (count > 0 && (id === 'tab' || id === 'enter')) {
      const accepted = acceptCompletion(buffer, completion);
      if (!accepted) return;
      if (id === 'enter' && accepted.runs) return send(ctx, mode, session, accepted.buffer, assist);
      edited(ctx, mode, session, accepted.buffer, assist);
      return;
    }
  }
  const action = actionFor('composer', id);
  switch (action) {
    case 'send':
      if (session) send(ctx, mode, session, buffer, assist);
      return;
    case 'cancel':
      cancel(ctx, mode, session, buffer);
      return;
    case 'newline':
      if (session) edited(ctx, mode, session, applyEdit(buffer, 'newline'), assist);
      return;
    case 'mode':
      if (session)
        ctx.intents.setPermissionMode(session.id, nextPermissionMode(session.permissionMode));
      return;
    case 'search':
      update(ctx, mode, buffer, {
        ...assist,
        completion: null,
        search: { query: '', at: null, before: buffer },
      });
      return;
    case 'pasteImage':
      if (session) ctx.intents.pasteClipboardImage(session.id);
      return;
    case 'saveDraft':
      saveDraftSession(ctx, mode, session, buffer, assist);
      return;
    case 'issues':
      if (!session || session.status !== 'Draft' || session.prompt !== null) {
        update(ctx, mode, buffer, {
          ...assist,
          completion: null,
          error:
            'An issue starts a new session (its first prompt); grove link ID --issue N links one.',
        });
        return;
      }
      update(ctx, mode, buffer, {
        ...assist,
        completion: null,
        error: null,
        issues: { query: '', selected: 0 },
      });
      ctx.intents.loadIssues();
      return;
    case 'bestOf':
      if (!session || session.status !== 'Draft' || session.prompt !== null) {
        update(ctx, mode, buffer, {
          ...assist,
          completion: null,
          error: 'Best of N is for a new session (its first prompt).',
        });
        return;
      }
      ctx.apply({
        type: 'mode',
        mode: { ...mode, bestOf: ((mode.bestOf ?? 1) % MAX_COMPOSER_VARIANTS) + 1 },
      });
      return;
    case 'older':
    case 'newer':
      if (browseHistory(ctx, mode, buffer, assist, action)) return;
      break;
    case 'complete':
      // Tab with no picker: nothing to take.
      return;
    case 'mention':
    case 'slash':
    case 'edit':
    case undefined:
      break;
    default:
      assertNever(action);
  }
  const next = editBuffer(buffer, key);
  if (next && session) edited(ctx, mode, session, next, assist);
  else if (next) update(ctx, mode, next, assist);
}

/** A paste: an image file's path attaches the image; other text is inserted as it is. */
export function handleComposerPaste(
  ctx: KeyContext,
  mode: SessionMode,
  buffer: TextBuffer,
  text: string,
): void {
  const image = pastedImagePath(text);
  if (image) {
    ctx.intents.attachImage(mode.sessionId, image);
    return;
  }
  const session = sessionById(ctx.state, mode.sessionId);
  const assist = mode.assist ?? noAssist;
  if (session) edited(ctx, mode, session, insertText(buffer, text), assist);
  else update(ctx, mode, insertText(buffer, text), assist);
}
