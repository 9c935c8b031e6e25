import { completionFor, noAssist } from '../domain/composer-assist.js';
import { insertText } from '../domain/composer.js';
import { recordPrompt } from '../domain/prompt-history.js';
import { acpAgentIds } from '../domain/slash-commands.js';
import { knownHosts } from '../domain/host.js';
import type { AppEvent } from './events.js';
import type { AppState } from './state.js';

/** How long a notice stays on screen (it also goes on the next key). */
export const NOTICE_MS = { info: 4000, warn: 6000, error: 8000 } as const;

/**
 * The tick's effect on the notice line: the first tick after a notice
 * appears starts its clock, a later one past its time removes it.
 */
export function tickNotice(state: AppState, now: number): AppState {
  const notice = state.notice;
  if (!notice) return state;
  if (notice.shownAt === undefined || notice.shownAt === null)
    return { ...state, notice: { ...notice, shownAt: now } };
  return now - notice.shownAt >= NOTICE_MS[notice.level] ? { ...state, notice: null } : state;
}

type ComposerEvent = Extract<
  AppEvent,
  {
    type:
      | 'fileIndexLoaded'
      | 'composerDataLoaded'
      | 'promptRecorded'
      | 'draftSaved'
      | 'composerAttach'
      | 'issueList';
  }
>;

/** The reducer's part for the composer's data: file lists, history, drafts, attachments. */
export function reduceComposer(state: AppState, event: ComposerEvent): AppState {
  switch (event.type) {
    case 'fileIndexLoaded': {
      const next = { ...state, fileIndex: { worktree: event.worktree, files: event.files } };
      // An `@` picker waiting for (or showing an older) list is filled in now.
      const mode = next.mode;
      if (mode.kind !== 'session' || !mode.composer || mode.assist?.completion?.kind !== 'file')
        return next;
      const session = next.sessions.find((s) => s.id === mode.sessionId);
      if (!session || session.worktreePath !== event.worktree) return next;
      const completion = completionFor(mode.composer, null, event.files, {
        agent: session.agent,
        acpAgents: acpAgentIds(next.agents),
        hosts: knownHosts(next.settings),
        newSession: session.prompt === null,
      });
      return { ...next, mode: { ...mode, assist: { ...mode.assist, completion } } };
    }
    case 'composerDataLoaded':
      if (event.projectId !== state.activeProjectId) return state;
      return { ...state, promptHistory: event.history, drafts: event.drafts };
    case 'promptRecorded':
      if (event.projectId !== state.activeProjectId) return state;
      return { ...state, promptHistory: recordPrompt(state.promptHistory, event.text) };
    case 'draftSaved': {
      if (event.text === null) {
        if (!(event.sessionId in state.drafts)) return state;
        const drafts = { ...state.drafts };
        delete drafts[event.sessionId];
        return { ...state, drafts };
      }
      return { ...state, drafts: { ...state.drafts, [event.sessionId]: event.text } };
    }
    case 'issueList':
      return { ...state, issueList: event.list };
    case 'composerAttach': {
      const mode = state.mode;
      if (mode.kind !== 'session' || mode.sessionId !== event.sessionId || !mode.composer)
        return state;
      const assist = mode.assist ?? noAssist;
      const composer =
        event.insert === undefined ? mode.composer : insertText(mode.composer, event.insert);
      const images =
        event.image === undefined || assist.images.includes(event.image)
          ? assist.images
          : [...assist.images, event.image];
      return { ...state, mode: { ...mode, composer, assist: { ...assist, images } } };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}
