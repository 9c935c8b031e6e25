import type { Project } from '../domain/project.js';
import type { Session } from '../domain/session.js';
import type { TranscriptEntry } from '../domain/transcript.js';
import type {
  AgentAvailability,
  DiffView,
  GitStatusView,
  Mode,
  Notice,
  Popup,
  Tab,
} from './state.js';

/**
 * Every change to the snapshot is one of these, applied by the reducer.
 * Key handlers emit the UI ones; services, workers and pollers emit the rest.
 */
export type AppEvent =
  | { readonly type: 'resize'; readonly columns: number; readonly rows: number }
  | { readonly type: 'tick'; readonly now: number }
  | { readonly type: 'tab'; readonly tab: Tab }
  | { readonly type: 'selectSession'; readonly sessionId: string | null }
  | { readonly type: 'selectProject'; readonly projectId: number | null }
  | { readonly type: 'selectSetting'; readonly index: number }
  | { readonly type: 'mode'; readonly mode: Mode }
  | { readonly type: 'popup'; readonly popup: Popup | null }
  | { readonly type: 'notice'; readonly notice: Notice | null }
  | { readonly type: 'exit' }
  | { readonly type: 'projectsLoaded'; readonly projects: readonly Project[] }
  | {
      readonly type: 'projectActivated';
      readonly projectId: number;
      readonly sessions: readonly Session[];
      readonly settings: Readonly<Record<string, string>>;
    }
  | { readonly type: 'sessionsLoaded'; readonly projectId: number; readonly sessions: readonly Session[] }
  | { readonly type: 'sessionUpdated'; readonly session: Session }
  | { readonly type: 'sessionRemoved'; readonly sessionId: string }
  | { readonly type: 'settingsLoaded'; readonly settings: Readonly<Record<string, string>> }
  | {
      readonly type: 'transcriptLoaded';
      readonly sessionId: string;
      readonly entries: readonly TranscriptEntry[];
    }
  | {
      readonly type: 'transcriptAppended';
      readonly sessionId: string;
      readonly entries: readonly TranscriptEntry[];
    }
  | { readonly type: 'progress'; readonly sessionId: string; readonly text: string | null }
  | { readonly type: 'queueChanged'; readonly sessionId: string; readonly prompts: readonly string[] }
  | { readonly type: 'diffLoaded'; readonly diff: DiffView }
  | { readonly type: 'agentsDetected'; readonly agents: readonly AgentAvailability[] }
  | { readonly type: 'sandboxChecked'; readonly missing: boolean }
  | { readonly type: 'gitStatus'; readonly projectId: number; readonly status: GitStatusView };

export type AppEventType = AppEvent['type'];
