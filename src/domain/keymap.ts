import type { Session } from './session.js';
import type { SessionStatus } from './session-status.js';

/**
 * One key-binding table per mode. Handlers in runtime/ look actions up here,
 * and the help overlay and footer hints are generated from the same rows, so
 * what the screen says is always what the keys do.
 */
export type ModeName =
  | 'sessions'
  | 'projects'
  | 'settings'
  | 'session'
  | 'composer'
  | 'question'
  | 'diff'
  | 'confirm'
  | 'help';

export interface Binding<A extends string = string> {
  readonly keys: readonly string[];
  readonly action: A;
  readonly help: string;
  /** Shown in the footer when available. */
  readonly hint?: string;
  /** For the session view: statuses in which the action applies (all when absent). */
  readonly statuses?: readonly SessionStatus[];
}

const REVIEWABLE: readonly SessionStatus[] = ['Review', 'AgentReview', 'Question'];
const TALKABLE: readonly SessionStatus[] = ['Review', 'AgentReview', 'Question', 'InProgress', 'Rebasing', 'Draft'];
const CANCELABLE: readonly SessionStatus[] = [
  'Draft',
  'Review',
  'AgentReview',
  'Question',
  'InProgress',
  'Queued',
];

const LIST_COMMON = [
  { keys: ['tab'], action: 'nextTab', help: 'Next tab' },
  { keys: ['shift+tab'], action: 'prevTab', help: 'Previous tab' },
  { keys: ['?'], action: 'help', help: 'Show this help', hint: 'help' },
  { keys: ['q'], action: 'quit', help: 'Quit Grove', hint: 'quit' },
] as const satisfies readonly Binding[];

/** Pulls and pushes the project branch, after a confirmation that says what goes where; not on the Settings tab. */
const SYNC = { keys: ['s', 'S'], action: 'syncMain', help: 'Sync the project branch with its upstream (asks first)', hint: 'sync' } as const satisfies Binding;

export const KEYMAP = {
  sessions: [
    { keys: ['j', 'down'], action: 'down', help: 'Select the next session' },
    { keys: ['k', 'up'], action: 'up', help: 'Select the previous session' },
    { keys: ['g', 'home'], action: 'first', help: 'Select the first session' },
    { keys: ['G', 'end'], action: 'last', help: 'Select the last session' },
    { keys: ['enter'], action: 'open', help: 'Open the selected session', hint: 'open' },
    { keys: ['a'], action: 'new', help: 'Start a new agent session', hint: 'new' },
    { keys: ['c'], action: 'cancel', help: 'Cancel the selected session', hint: 'cancel' },
    SYNC,
    ...LIST_COMMON,
  ],
  projects: [
    { keys: ['j', 'down'], action: 'down', help: 'Select the next project' },
    { keys: ['k', 'up'], action: 'up', help: 'Select the previous project' },
    { keys: ['enter'], action: 'open', help: 'Make the selected project active', hint: 'switch' },
    SYNC,
    ...LIST_COMMON,
  ],
  settings: [
    { keys: ['j', 'down'], action: 'down', help: 'Select the next setting' },
    { keys: ['k', 'up'], action: 'up', help: 'Select the previous setting' },
    { keys: ['enter', 'right', 'l'], action: 'next', help: 'Change the selected setting', hint: 'change' },
    { keys: ['left', 'h'], action: 'prev', help: 'Change the selected setting backwards' },
    ...LIST_COMMON,
  ],
  session: [
    { keys: ['q', 'escape'], action: 'back', help: 'Back to the list', hint: 'back' },
    { keys: ['enter'], action: 'reply', help: 'Write a prompt (queued while the agent works)', hint: 'reply', statuses: TALKABLE },
    { keys: ['d'], action: 'diff', help: 'Show the diff', hint: 'diff' },
    { keys: ['m'], action: 'merge', help: 'Add to the merge queue', hint: 'merge', statuses: REVIEWABLE },
    { keys: ['r'], action: 'rebase', help: 'Rebase onto the base branch', hint: 'rebase', statuses: ['Review', 'AgentReview', 'InProgress'] },
    { keys: ['p'], action: 'publish', help: 'Publish as a pull request', hint: 'publish', statuses: ['Review', 'AgentReview', 'InProgress', 'Question'] },
    { keys: ['f'], action: 'review', help: 'Regenerate the focused review', hint: 'review', statuses: ['Review', 'AgentReview'] },
    { keys: ['c'], action: 'cancel', help: 'Cancel the session', hint: 'cancel', statuses: CANCELABLE },
    { keys: ['y'], action: 'copy', help: 'Copy the pull request URL, the branch restore command or the worktree path' },
    { keys: ['shift+tab'], action: 'mode', help: 'Next permission mode: Auto Edit, Read Only, Plan (from the next turn)', hint: 'mode', statuses: TALKABLE },
    { keys: ['ctrl+c'], action: 'stop', help: 'Retract the newest queued prompt, else stop the turn', hint: 'stop', statuses: ['InProgress'] },
    { keys: ['j', 'down'], action: 'scrollDown', help: 'Scroll down' },
    { keys: ['k', 'up'], action: 'scrollUp', help: 'Scroll up' },
    { keys: ['ctrl+d', 'pagedown'], action: 'pageDown', help: 'Scroll half a page down' },
    { keys: ['ctrl+u', 'pageup'], action: 'pageUp', help: 'Scroll half a page up' },
    { keys: ['g', 'home'], action: 'top', help: 'Scroll to the top' },
    { keys: ['G', 'end'], action: 'bottom', help: 'Scroll to the bottom and follow' },
    { keys: ['?'], action: 'help', help: 'Show this help', hint: 'help' },
  ],
  composer: [
    { keys: ['enter'], action: 'send', help: 'Send the prompt', hint: 'send' },
    { keys: ['shift+enter', 'alt+enter', 'ctrl+j'], action: 'newline', help: 'Insert a new line', hint: 'newline' },
    { keys: ['escape'], action: 'cancel', help: 'Close the composer (an unstarted session is deleted)', hint: 'cancel' },
    { keys: ['shift+tab'], action: 'mode', help: 'Next permission mode: Auto Edit, Read Only, Plan', hint: 'mode' },
    { keys: ['alt+left', 'alt+b', 'ctrl+left'], action: 'edit', help: 'Previous word' },
    { keys: ['alt+right', 'alt+f', 'ctrl+right'], action: 'edit', help: 'Next word' },
    { keys: ['ctrl+a', 'ctrl+e'], action: 'edit', help: 'Start / end of line' },
    { keys: ['home', 'end'], action: 'edit', help: 'Start / end of the prompt' },
    { keys: ['ctrl+w', 'alt+backspace'], action: 'edit', help: 'Delete the previous word' },
    { keys: ['ctrl+u'], action: 'edit', help: 'Delete to the start of the line' },
    { keys: ['ctrl+k'], action: 'edit', help: 'Delete to the end of the line' },
    { keys: ['ctrl+z'], action: 'edit', help: 'Undo' },
    { keys: ['ctrl+y', 'ctrl+shift+z'], action: 'edit', help: 'Redo' },
  ],
  question: [
    { keys: ['j', 'down'], action: 'down', help: 'Next option (past the last: type an answer)' },
    { keys: ['k', 'up'], action: 'up', help: 'Previous option' },
    { keys: ['enter'], action: 'answer', help: 'Answer with the highlighted option or the typed text', hint: 'answer' },
    { keys: ['escape'], action: 'end', help: 'End the question round without replying', hint: 'end round' },
  ],
  diff: [
    { keys: ['q', 'escape'], action: 'back', help: 'Back to the session', hint: 'back' },
    { keys: ['j', 'down'], action: 'nextFile', help: 'Next file', hint: 'files' },
    { keys: ['k', 'up'], action: 'prevFile', help: 'Previous file' },
    { keys: ['J', 'ctrl+d', 'pagedown'], action: 'scrollDown', help: 'Scroll the patch down', hint: 'scroll' },
    { keys: ['K', 'ctrl+u', 'pageup'], action: 'scrollUp', help: 'Scroll the patch up' },
    { keys: ['?'], action: 'help', help: 'Show this help', hint: 'help' },
  ],
  confirm: [
    { keys: ['y', 'Y'], action: 'yes', help: 'Yes' },
    { keys: ['n', 'N', 'escape', 'q'], action: 'no', help: 'No' },
    { keys: ['left', 'right', 'h', 'l', 'tab'], action: 'toggle', help: 'Switch between Yes and No' },
    { keys: ['enter'], action: 'choose', help: 'Choose the highlighted answer' },
  ],
  help: [{ keys: ['escape', 'q', '?', 'enter'], action: 'close', help: 'Close help' }],
} as const satisfies Record<ModeName, readonly Binding[]>;

export type ActionOf<M extends ModeName> = (typeof KEYMAP)[M][number]['action'];

/** The action bound to `keyId` in `mode`, respecting status rules. */
export function actionFor<M extends ModeName>(
  mode: M,
  keyId: string,
  session?: Pick<Session, 'status'>,
): ActionOf<M> | undefined {
  const rows: readonly Binding[] = KEYMAP[mode];
  for (const row of rows) {
    if (!row.keys.includes(keyId)) continue;
    if (!isAvailable(row, session)) continue;
    return row.action as ActionOf<M>;
  }
  return undefined;
}

export function isAvailable(row: Binding, session?: Pick<Session, 'status'>): boolean {
  if (!row.statuses || !session) return true;
  return row.statuses.includes(session.status);
}

/** Rows that apply right now (for help and footer). */
export function availableBindings(mode: ModeName, session?: Pick<Session, 'status'>): Binding[] {
  const rows: readonly Binding[] = KEYMAP[mode];
  return rows.filter((row) => isAvailable(row, session));
}

/** How a key id is shown to people: `ctrl+c` → `Ctrl+C`. */
export function displayKey(id: string): string {
  const names: Record<string, string> = {
    enter: 'Enter',
    escape: 'Esc',
    tab: 'Tab',
    up: '↑',
    down: '↓',
    left: '←',
    right: '→',
    home: 'Home',
    end: 'End',
    pageup: 'PgUp',
    pagedown: 'PgDn',
    backspace: 'Backspace',
    space: 'Space',
  };
  return id
    .split('+')
    .map((part, index, parts) => {
      if (index < parts.length - 1) return part.charAt(0).toUpperCase() + part.slice(1);
      return names[part] ?? (parts.length > 1 ? part.toUpperCase() : part);
    })
    .join('+');
}

/** `j/↓` style label for a row. */
export function displayKeys(row: Binding): string {
  return row.keys.map(displayKey).join('/');
}
