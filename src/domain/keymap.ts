import type { SessionStatus } from './session-status.js';

export { displayKey, displayKeys } from './key-names.js';
import { SESSION_FILTER_KEYS, SESSION_SEARCH_KEYS } from './session-filter.js';

import type { Binding, ModeName } from './binding.js';

export type { Binding, BindingSubject, ModeName } from './binding.js';

/**
 * One key-binding table per mode. Handlers in runtime/ look actions up here,
 * and the help overlay and footer hints are generated from the same rows, so
 * what the screen says is always what the keys do.
 */
const REVIEWABLE: readonly SessionStatus[] = ['Review', 'AgentReview', 'Question'];
const TALKABLE: readonly SessionStatus[] = [
  'Review',
  'AgentReview',
  'Question',
  'InProgress',
  'Rebasing',
  'Draft',
];
/** Statuses in which the session has a worktree to open (a saved draft gets one when started). */
const WITH_WORKTREE: readonly SessionStatus[] = [
  'Draft',
  'InProgress',
  'Review',
  'AgentReview',
  'Question',
  'Queued',
  'Rebasing',
  'Merging',
];
const CANCELABLE: readonly SessionStatus[] = [
  'Draft',
  'Review',
  'AgentReview',
  'Question',
  'InProgress',
  'Queued',
];

const LIST_COMMON = [
  // Shift+Tab is the permission-mode key (session view, composer), so it never switches tabs.
  {
    keys: ['tab'],
    action: 'nextTab',
    help: 'Next tab (Projects, Sessions, Settings, round again)',
  },
  { keys: ['?'], action: 'help', help: 'Show this help', hint: 'help' },
  { keys: ['q'], action: 'quit', help: 'Quit Grove', hint: 'quit' },
] as const satisfies readonly Binding[];

/** Pulls and pushes the project branch, after a confirmation that says what goes where; not on the Settings tab. */
const SYNC = {
  keys: ['s', 'S'],
  action: 'syncMain',
  help: 'Sync the project branch with its upstream (asks first)',
  hint: 'sync',
} as const satisfies Binding;

/** The editing keys of the prompt composer, shared by every multi-line editor. */
const EDIT_ROWS = [
  { keys: ['alt+left', 'alt+b', 'ctrl+left'], action: 'edit', help: 'Previous word' },
  { keys: ['alt+right', 'alt+f', 'ctrl+right'], action: 'edit', help: 'Next word' },
  { keys: ['ctrl+a', 'ctrl+e'], action: 'edit', help: 'Start / end of line' },
  { keys: ['home', 'end'], action: 'edit', help: 'Start / end of the prompt' },
  { keys: ['ctrl+w', 'alt+backspace'], action: 'edit', help: 'Delete the previous word' },
  { keys: ['ctrl+u'], action: 'edit', help: 'Delete to the start of the line' },
  { keys: ['ctrl+k'], action: 'edit', help: 'Delete to the end of the line' },
  { keys: ['ctrl+z'], action: 'edit', help: 'Undo' },
  { keys: ['ctrl+y', 'ctrl+shift+z'], action: 'edit', help: 'Redo' },
] as const satisfies readonly Binding[];

export const KEYMAP = {
  sessions: [
    { keys: ['j', 'down'], action: 'down', help: 'Select the next session' },
    { keys: ['k', 'up'], action: 'up', help: 'Select the previous session' },
    { keys: ['g', 'home'], action: 'first', help: 'Select the first session' },
    { keys: ['G', 'end'], action: 'last', help: 'Select the last session' },
    { keys: ['enter'], action: 'open', help: 'Open the selected session', hint: 'open' },
    { keys: ['a'], action: 'new', help: 'Start a new agent session', hint: 'new' },
    { keys: ['c'], action: 'cancel', help: 'Cancel the selected session', hint: 'cancel' },
    {
      keys: ['r'],
      action: 'startDraft',
      help: 'Start the selected draft session (makes its worktree, sends its prompt)',
      hint: 'start draft',
    },
    {
      keys: ['R'],
      action: 'startDrafts',
      help: 'Start the marked draft sessions, or every draft when none is marked',
    },
    { keys: ['space'], action: 'mark', help: 'Mark the selected draft (or unmark it) for R' },
    {
      keys: ['o'],
      action: 'shell',
      help: "Open $SHELL in the selected session's worktree (a new tmux window inside tmux)",
    },
    {
      keys: ['e'],
      action: 'editor',
      help: "Open $VISUAL / $EDITOR in the selected session's worktree",
    },
    {
      keys: ['D'],
      action: 'disk',
      help: "Show the Disk view: each worktree's size, what is shared, what gc would reclaim",
    },
    ...SESSION_FILTER_KEYS,
    SYNC,
    ...LIST_COMMON,
  ],
  sessionSearch: SESSION_SEARCH_KEYS,
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
    {
      keys: ['enter', 'right', 'l'],
      action: 'next',
      help: 'Change the selected setting',
      hint: 'change',
    },
    { keys: ['left', 'h'], action: 'prev', help: 'Change the selected setting backwards' },
    ...LIST_COMMON,
  ],
  session: [
    { keys: ['q', 'escape'], action: 'back', help: 'Back to the list', hint: 'back' },
    {
      keys: ['enter'],
      action: 'reply',
      help: 'Write a prompt (queued while the agent works)',
      hint: 'reply',
      statuses: TALKABLE,
    },
    { keys: ['d'], action: 'diff', help: 'Show the diff', hint: 'diff' },
    {
      keys: ['m'],
      action: 'merge',
      help: 'Add to the merge queue',
      hint: 'merge',
      statuses: REVIEWABLE,
    },
    {
      keys: ['r'],
      action: 'rebase',
      help: 'Rebase onto the base branch',
      hint: 'rebase',
      statuses: ['Review', 'AgentReview', 'InProgress'],
    },
    {
      keys: ['p'],
      action: 'publish',
      help: 'Publish as a pull request',
      hint: 'publish',
      statuses: ['Review', 'AgentReview', 'InProgress', 'Question'],
    },
    {
      keys: ['f'],
      action: 'review',
      help: 'Regenerate the focused review',
      hint: 'review',
      statuses: ['Review', 'AgentReview'],
    },
    {
      keys: ['c'],
      action: 'cancel',
      help: 'Cancel the session',
      hint: 'cancel',
      statuses: CANCELABLE,
    },
    {
      keys: ['C'],
      action: 'reviewComments',
      help: "Turn the focused review's findings into draft diff comments (keep, edit or drop each, then send)",
      statuses: REVIEWABLE,
    },
    {
      keys: ['t'],
      action: 'threads',
      help: "The pull request's unresolved review threads: pick, send to the agent, resolve",
      hint: 'threads',
      statuses: ['Review', 'AgentReview', 'Question', 'InProgress'],
      needs: 'pullRequest',
    },
    {
      keys: ['y'],
      action: 'copy',
      help: 'Copy the pull request URL, the branch restore command or the worktree path',
    },
    {
      keys: ['W'],
      action: 'chooseWinner',
      help: 'Best of N: merge the winner of the ranking and cancel the other variants (their branches are kept; asks first)',
      hint: 'winner',
      statuses: REVIEWABLE,
      needs: 'bestOf',
    },
    {
      keys: ['P'],
      action: 'publishWinner',
      help: 'Best of N: publish the winner of the ranking as a pull request and cancel the other variants (their branches are kept; asks first)',
      statuses: REVIEWABLE,
      needs: 'bestOf',
    },
    {
      keys: ['F'],
      action: 'fork',
      help: "Fork: a new session from this one's branch and uncommitted work, with a summary of this transcript as context",
      hint: 'fork',
      statuses: ['Review', 'AgentReview', 'Question'],
    },
    {
      keys: ['u'],
      action: 'continue',
      help: 'Continue the session: its worktree is made again from the kept branch (or the base branch) and it takes replies',
      hint: 'continue',
      statuses: ['Done', 'Canceled'],
    },
    {
      keys: ['o'],
      action: 'shell',
      help: 'Open $SHELL in the worktree (Grove waits; a new tmux window inside tmux); changes show in the diff',
      hint: 'shell',
      statuses: WITH_WORKTREE,
    },
    {
      keys: ['e'],
      action: 'editor',
      help: 'Open $VISUAL / $EDITOR in the worktree (Grove waits; a new tmux window inside tmux)',
      statuses: WITH_WORKTREE,
    },
    {
      keys: ['shift+tab'],
      action: 'mode',
      help: 'Next permission mode: Auto Edit, Read Only, Plan (from the next turn)',
      hint: 'mode',
      statuses: TALKABLE,
    },
    {
      keys: ['ctrl+c'],
      action: 'stop',
      help: 'Retract the newest queued prompt, else stop the turn',
      hint: 'stop',
      statuses: ['InProgress'],
    },
    {
      keys: ['x'],
      action: 'toolCalls',
      help: "Unfold or fold the agent's tool calls and commands (folded: one line each)",
      hint: 'tools',
    },
    { keys: ['j', 'down'], action: 'scrollDown', help: 'Scroll down' },
    { keys: ['k', 'up'], action: 'scrollUp', help: 'Scroll up' },
    { keys: ['ctrl+d', 'pagedown'], action: 'pageDown', help: 'Scroll half a page down' },
    { keys: ['ctrl+u', 'pageup'], action: 'pageUp', help: 'Scroll half a page up' },
    { keys: ['g', 'home'], action: 'top', help: 'Scroll to the top' },
    { keys: ['G', 'end'], action: 'bottom', help: 'Scroll to the bottom and follow' },
    { keys: ['?'], action: 'help', help: 'Show this help', hint: 'help' },
  ],
  composer: [
    {
      keys: ['enter'],
      action: 'send',
      help: 'Send the prompt; a /command runs instead; in a picker, take the highlighted item',
      hint: 'send',
    },
    {
      keys: ['shift+enter', 'alt+enter', 'ctrl+j'],
      action: 'newline',
      help: 'Insert a new line',
      hint: 'newline',
    },
    {
      keys: ['escape'],
      action: 'cancel',
      help: "Close the picker; else close the composer (with text it asks first, and keeps the text as the session's draft; an empty unstarted session is deleted)",
      hint: 'cancel',
    },
    {
      keys: ['shift+tab'],
      action: 'mode',
      help: 'Next permission mode: Auto Edit, Read Only, Plan',
      hint: 'mode',
    },
    {
      keys: ['@'],
      action: 'mention',
      help: 'Mention a file of the worktree: type to filter (fuzzy), Tab or Enter takes the highlighted one',
      hint: 'file',
    },
    {
      keys: ['/'],
      action: 'slash',
      help: 'At the start of the prompt: pick a command (/model, /agent, /reasoning, /mode, /host, /ci-fixer, /review, /diff, /merge, /publish, /clear)',
      hint: 'command',
    },
    {
      keys: ['tab'],
      action: 'complete',
      help: 'Take the highlighted file or command of the picker',
    },
    {
      keys: ['up', 'ctrl+p'],
      action: 'older',
      help: 'In a picker: the previous item; on an empty prompt (or one from the history): the previous prompt of this project',
    },
    {
      keys: ['down', 'ctrl+n'],
      action: 'newer',
      help: 'In a picker: the next item; in the history: the next prompt (past the newest: empty)',
    },
    {
      keys: ['ctrl+r'],
      action: 'search',
      help: 'Search the prompt history (reverse-i-search)',
      hint: 'history',
    },
    {
      keys: ['alt+i'],
      action: 'issues',
      help: 'In a new session: pick an open GitHub issue of the project to start from (yours first; type to filter, label:x); Enter starts it, your text first',
      hint: 'issue',
    },
    {
      keys: ['alt+n'],
      action: 'bestOf',
      help: 'In a new session: best of N, run this prompt in 1, 2, 3 or 4 sessions (each press the next), then check and rank them',
      hint: 'best of N',
    },
    {
      keys: ['ctrl+s'],
      action: 'saveDraft',
      help: 'In a new session: save the prompt as a draft session (no worktree yet; start it from the list with r)',
      hint: 'save draft',
    },
    {
      keys: ['ctrl+v'],
      action: 'pasteImage',
      help: "Attach the clipboard's image (a pasted image file path is attached too)",
    },
    ...EDIT_ROWS,
  ],
  historySearch: [
    { keys: ['ctrl+r'], action: 'older', help: 'The next older match', hint: 'older' },
    {
      keys: ['enter', 'tab'],
      action: 'accept',
      help: 'Put the match in the composer (to edit or send)',
      hint: 'take',
    },
    {
      keys: ['escape', 'ctrl+g'],
      action: 'cancel',
      help: 'Back to the text as it was',
      hint: 'cancel',
    },
    { keys: ['backspace'], action: 'erase', help: 'Delete the last character of the search' },
  ],
  question: [
    { keys: ['j', 'down'], action: 'down', help: 'Next option (past the last: type an answer)' },
    { keys: ['k', 'up'], action: 'up', help: 'Previous option' },
    {
      keys: ['enter'],
      action: 'answer',
      help: 'Answer with the highlighted option or the typed text',
      hint: 'answer',
    },
    {
      keys: ['escape'],
      action: 'end',
      help: 'End the question round without replying',
      hint: 'end round',
    },
  ],
  threads: [
    { keys: ['j', 'down'], action: 'down', help: 'Next thread' },
    { keys: ['k', 'up'], action: 'up', help: 'Previous thread' },
    { keys: ['space'], action: 'toggle', help: 'Pick the thread (or drop it)', hint: 'pick' },
    {
      keys: ['enter'],
      action: 'send',
      help: 'Send the picked threads to the agent as the next turn (all open ones when none is picked)',
      hint: 'send',
    },
    {
      keys: ['x'],
      action: 'resolve',
      help: 'Resolve the threads Grove answered, on GitHub (asks first)',
      hint: 'resolve',
    },
    {
      keys: ['u'],
      action: 'refresh',
      help: 'Fetch the threads from GitHub again',
      hint: 'refresh',
    },
    { keys: ['escape', 'q', 't'], action: 'close', help: 'Close the thread panel', hint: 'close' },
    { keys: ['?'], action: 'help', help: 'Show this help' },
  ],
  diff: [
    {
      keys: ['q'],
      action: 'back',
      help: 'Back to the session (stops a diff that is still loading)',
      hint: 'back',
    },
    {
      keys: ['escape'],
      action: 'escape',
      help: 'Clear the selection or the search; else stop loading or go back',
    },
    { keys: ['tab'], action: 'focus', help: 'Next pane: files, patch, comments', hint: 'pane' },
    {
      keys: ['j', 'down'],
      action: 'down',
      help: 'Next file, line or comment (in the focused pane); extends a selection',
    },
    {
      keys: ['k', 'up'],
      action: 'up',
      help: 'Previous file, line or comment; extends a selection',
    },
    {
      keys: ['J', 'ctrl+d', 'pagedown'],
      action: 'pageDown',
      help: 'Half a page down in the patch',
    },
    { keys: ['K', 'ctrl+u', 'pageup'], action: 'pageUp', help: 'Half a page up in the patch' },
    { keys: ['g', 'home'], action: 'top', help: 'First line of the file' },
    { keys: ['G', 'end'], action: 'bottom', help: 'Last line of the file' },
    { keys: [']'], action: 'nextChange', help: 'Next change (across files)', hint: 'change' },
    { keys: ['['], action: 'prevChange', help: 'Previous change (across files)' },
    { keys: ['w'], action: 'wrap', help: 'Wrap long lines on or off', hint: 'wrap' },
    {
      keys: ['l', 'right'],
      action: 'scrollRight',
      help: 'Scroll the patch right (when not wrapping)',
    },
    {
      keys: ['h', 'left'],
      action: 'scrollLeft',
      help: 'Scroll the patch left (when not wrapping)',
    },
    {
      keys: ['/'],
      action: 'search',
      help: 'Search the diff (matches are highlighted)',
      hint: 'search',
    },
    { keys: ['n'], action: 'nextMatch', help: 'Next match of the search' },
    { keys: ['N'], action: 'prevMatch', help: 'Previous match of the search' },
    {
      keys: ['V'],
      action: 'select',
      help: 'Select a range of lines (extend with j/k; V again clears it)',
      hint: 'select',
    },
    {
      keys: ['enter', 'c'],
      action: 'comment',
      help: 'Comment on the line or the selected range; in the file tree, on the whole file; in the comments pane, edit it',
      hint: 'comment',
    },
    {
      keys: ['x', 'delete'],
      action: 'deleteComment',
      help: 'Delete the selected comment (comments pane) or the comment on the line',
    },
    {
      keys: ['S'],
      action: 'submit',
      help: 'Send every draft comment to the agent as the next turn',
      hint: 'send comments',
    },
    { keys: ['?'], action: 'help', help: 'Show this help', hint: 'help' },
  ],
  comment: [
    {
      keys: ['enter'],
      action: 'save',
      help: 'Save the comment as a draft (an empty one is deleted)',
      hint: 'save',
    },
    {
      keys: ['shift+enter', 'alt+enter', 'ctrl+j'],
      action: 'newline',
      help: 'Insert a new line',
      hint: 'newline',
    },
    { keys: ['escape'], action: 'cancel', help: 'Close without saving', hint: 'cancel' },
    ...EDIT_ROWS,
  ],
  diffSearch: [
    { keys: ['enter'], action: 'find', help: 'Search for the typed text', hint: 'find' },
    { keys: ['escape'], action: 'cancel', help: 'Cancel the search', hint: 'cancel' },
  ],
  confirm: [
    { keys: ['y', 'Y'], action: 'yes', help: 'Yes', hint: 'yes' },
    { keys: ['n', 'N', 'escape', 'q'], action: 'no', help: 'No', hint: 'no' },
    {
      keys: ['left', 'right', 'h', 'l', 'tab'],
      action: 'toggle',
      help: 'Switch between Yes and No',
      hint: 'switch',
    },
    { keys: ['enter'], action: 'choose', help: 'Choose the highlighted answer', hint: 'choose' },
  ],
  inbox: [
    {
      keys: ['ctrl+o'],
      action: 'open',
      help: 'Open the inbox from anywhere (everything waiting on you, every project), or close it',
      hint: 'inbox',
    },
    { keys: ['j', 'down'], action: 'down', help: 'Next item' },
    { keys: ['k', 'up'], action: 'up', help: 'Previous item' },
    {
      keys: ['enter'],
      action: 'jump',
      help: "Open the item's session (switching to its project)",
      hint: 'open',
    },
    {
      keys: ['a'],
      action: 'approveOnce',
      help: 'Approval: let the agent do it this once. Confirmation: let Grove do what the MCP client asked',
    },
    {
      keys: ['A'],
      action: 'approveSession',
      help: 'Approval: let the agent do it, and the same again, for the rest of the session',
    },
    {
      keys: ['L'],
      action: 'approveAllowList',
      help: 'Network approval: let the agent reach the host, and add it to the allowed hosts (agents.network.allow) for every later session',
    },
    {
      keys: ['d'],
      action: 'deny',
      help: 'Approval or confirmation: deny or refuse it (what happens on timeout too)',
    },
    { keys: ['escape', 'q'], action: 'close', help: 'Close the inbox', hint: 'close' },
  ],
  disk: [
    { keys: ['j', 'down'], action: 'down', help: 'Next worktree' },
    { keys: ['k', 'up'], action: 'up', help: 'Previous worktree' },
    { keys: ['escape', 'q', 'D'], action: 'close', help: 'Close the Disk view', hint: 'close' },
  ],
  help: [
    { keys: ['escape', 'q', '?', 'enter'], action: 'close', help: 'Close help', hint: 'close' },
    {
      keys: ['j', 'down'],
      action: 'down',
      help: 'Scroll down (when the keys do not fit the screen)',
      hint: 'scroll',
    },
    { keys: ['k', 'up'], action: 'up', help: 'Scroll up' },
    { keys: ['ctrl+d', 'pagedown', 'space'], action: 'pageDown', help: 'A page down' },
    { keys: ['ctrl+u', 'pageup'], action: 'pageUp', help: 'A page up' },
  ],
} as const satisfies Record<ModeName, readonly Binding[]>;

export type ActionOf<M extends ModeName> = (typeof KEYMAP)[M][number]['action'];
