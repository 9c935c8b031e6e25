import { KEYMAP, displayKeys, type Binding, type ModeName } from './keymap.js';

const SECTIONS: readonly [ModeName, string, string][] = [
  [
    'sessions',
    'Sessions tab',
    'The session list, grouped into Merge queue, Active and Archive. `/` and `f` filter it; the header shows the filter and how many sessions it shows ("3 of 40").',
  ],
  [
    'sessionSearch',
    'Session search',
    'Typing a search on the Sessions tab (`/`): the list shows the sessions whose title, branch or first prompt has the text (case does not matter) as you type; every printable key is typed.',
  ],
  ['projects', 'Projects tab', 'Registered projects and the agent CLIs Grove found.'],
  ['settings', 'Settings tab', 'Per-project and global settings.'],
  [
    'session',
    'Session view',
    'One session: header, transcript, summary. Keys marked with statuses only work in those statuses; the footer and help show only what applies now (`t` once the session has a pull request, `W` and `P` in a best-of-N group).',
  ],
  [
    'composer',
    'Prompt composer',
    "Multiline prompt input. Bracketed paste inserts text as typed; a pasted path of a PNG, JPEG, GIF or WebP file attaches the image. Typing `@` opens a fuzzy picker of the worktree's files; `/` at the start opens the slash commands; a command that changes the session (/model, /agent, /reasoning, /mode, /host, /ci-fixer, /review, /clear) leaves the composer open for the prompt, while /diff, /merge and /publish close it. Up/Down on an empty prompt walk the project's prompt history.",
  ],
  [
    'historySearch',
    'History search',
    "Ctrl+R in the composer: type to search the project's prompts, newest first.",
  ],
  [
    'question',
    'Question panel',
    "Answering the agent's clarifying questions. In the free-text line every printable key is typed.",
  ],
  [
    'threads',
    'Review-thread panel',
    "The unresolved review threads of a published session's pull request (`t` in the session view). Enter sends the picked ones (or all) to the agent as one turn; afterwards Grove pushes, replies on each thread with what changed and the commit, and asks before resolving them.",
  ],
  [
    'diff',
    'Diff view',
    "Files changed by the session against its merge base (for a canceled session, its kept branch): a file tree with +/- totals, the patch of the selected file, and the session's inline comments. Keys act on the focused pane (Tab switches).",
  ],
  [
    'comment',
    'Comment editor',
    'Writing an inline diff comment (markdown) in the diff view; the editing keys are those of the prompt composer.',
  ],
  ['diffSearch', 'Diff search', 'Typing a search in the diff view; every printable key is typed.'],
  [
    'confirm',
    'Confirmation popups',
    'A question opens at the bottom, just above the composer or panel you are typing in (or above the footer), and the footer shows its keys. The default answer is No, except for closing the composer with text in it.',
  ],
  [
    'inbox',
    'Inbox',
    'Everything waiting on you, across every project, oldest first ([inbox.md](inbox.md)). Ctrl+O opens it from any page, the composer included; the header shows how many items wait.',
  ],
  [
    'disk',
    'Disk view',
    'Each worktree of the project with its size on disk, what it shares and what `grove gc` would reclaim ([capacity.md](capacity.md#disk)). D on the Sessions tab opens it.',
  ],
  ['help', 'Help overlay', ''],
];

function row(binding: Binding): string {
  const needs =
    binding.needs === 'pullRequest'
      ? 'with a pull request'
      : binding.needs === 'bestOf'
        ? 'in a best-of-N group'
        : null;
  const when = [
    ...(binding.statuses ? [binding.statuses.join(', ')] : []),
    ...(needs ? [needs] : []),
  ];
  const statuses = when.length > 0 ? ` (${when.join('; ')})` : '';
  return `| ${displayKeys(binding).replace(/\|/g, '\\|')} | ${binding.help}${statuses} |`;
}

/** The keybinding reference, generated from the same tables the handlers use. */
export function keymapMarkdown(): string {
  const out = [
    '# Keybindings',
    '',
    '<!-- Generated from src/domain/keymap.ts by `npm run docs:keys`; a test fails when this file is out of date. -->',
    '',
    'Press `?` anywhere to see the keys that apply right now. The keys below are the shipped ones; `GROVE_HOME/keys.json` can change them ([configuration.md](configuration.md#files-in-grove_home)).',
    '',
    'Shift+Tab is the permission-mode key (Auto Edit, Read Only, Plan) of the session view and the composer; on the Projects, Sessions and Settings tabs it does nothing, and Tab goes round the tabs.',
  ];
  for (const [mode, title, intro] of SECTIONS) {
    out.push('', `## ${title}`, '');
    if (intro) out.push(intro, '');
    out.push('| Keys | Action |', '| --- | --- |');
    const rows: readonly Binding[] = KEYMAP[mode];
    for (const binding of rows) out.push(row(binding));
  }
  return `${out.join('\n')}\n`;
}
