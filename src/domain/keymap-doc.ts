import { KEYMAP, displayKeys, type Binding, type ModeName } from './keymap.js';

const SECTIONS: readonly [ModeName, string, string][] = [
  ['sessions', 'Sessions tab', 'The session list, grouped into Merge queue, Active and Archive.'],
  ['projects', 'Projects tab', 'Registered projects and the agent CLIs Grove found.'],
  ['settings', 'Settings tab', 'Per-project and global settings.'],
  ['session', 'Session view', 'One session: header, transcript, summary. Keys marked with statuses only work in those statuses; the footer and help show only what applies now.'],
  ['composer', 'Prompt composer', 'Multiline prompt input. Bracketed paste inserts text as typed.'],
  ['question', 'Question panel', 'Answering the agent\'s clarifying questions. In the free-text line every printable key is typed.'],
  ['diff', 'Diff view', 'Files changed by the session against its merge base, with the patch of the selected file.'],
  ['confirm', 'Confirmation popups', 'The default answer is No.'],
  ['help', 'Help overlay', ''],
];

function row(binding: Binding): string {
  const statuses = binding.statuses ? ` (${binding.statuses.join(', ')})` : '';
  return `| ${displayKeys(binding).replace(/\|/g, '\\|')} | ${binding.help}${statuses} |`;
}

/** The keybinding reference, generated from the same tables the handlers use. */
export function keymapMarkdown(): string {
  const out = [
    '# Keybindings',
    '',
    '<!-- Generated from src/domain/keymap.ts by `npm run docs:keys`; a test fails when this file is out of date. -->',
    '',
    'Press `?` anywhere to see the keys that apply right now.',
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
