import { agentResponseJsonSchema } from '../../domain/protocol.js';
import type { PermissionMode } from '../../domain/permission-mode.js';
import type { RequestKind } from './channel.js';

const SEPARATOR = '\n\n---\n\n';

function schemaBlock(): string {
  return [
    'The JSON Schema of that object:',
    '```json',
    JSON.stringify(agentResponseJsonSchema(true), null, 2),
    '```',
  ].join('\n');
}

function sessionRules(worktree: string): string {
  return [
    'You are working in a git worktree that Grove created for this task. Grove reviews, commits and merges your work; you only edit files.',
    `- The working directory (${worktree}) is the only place you may change. Do not write outside it (no \`cd\` elsewhere, no \`git -C\`, no symlinks out).`,
    '- Only read-only git commands (status, diff, log, show). Never commit, amend, checkout, switch, reset, rebase, merge, stash or push: Grove does that.',
    '- Run the checks the repository uses for the files you touched (tests, lint, typecheck) when it is practical, and remove temporary files you created.',
    '- Paths you mention are repository-relative (`src/app.ts:12`).',
    '',
    'When you are done, your final message must be exactly one JSON object, and nothing after it:',
    '- `answer`: markdown for the developer — what you did, what they should check, what is left.',
    '- `questions`: clarifying questions only when you cannot reasonably proceed without an answer (at most 5, each with up to 3 short options, the recommended one first). Do not ask for permission or sign-off. Otherwise an empty list.',
    '- `summary`: `{ "turn": what this turn did, "session": what the whole session has changed so far }`.',
  ].join('\n');
}

/** What a session that may not write is told, before the usual rules. */
function modeRules(mode: PermissionMode): string {
  switch (mode) {
    case 'auto_edit':
      return '';
    case 'read_only':
      return 'This session is in Read Only mode: do not create, change or delete any file, and run no command that modifies anything. Read and search, then answer. Requests to write are denied.\n\n';
    case 'plan':
      return 'This session is in Plan mode: do not create, change or delete any file, and run no command that modifies anything. Read and search the code, then propose a plan in `answer`: the steps, the files each step changes and how to check the result. Requests to write are denied; the developer switches the session to Auto Edit to carry the plan out.\n\n';
    default:
      return '';
  }
}

function utilityRules(): string {
  return [
    'This is a one-off request from Grove, not a coding task: do not change any files and do not run commands that modify anything.',
    'Reply with exactly one JSON object and nothing after it: put the whole result in `answer`, use an empty `questions` list and `summary: null`.',
  ].join('\n');
}

/** The full prompt for one turn: Grove's protocol preamble, then the user's words. */
export function buildTurnPrompt(input: {
  userPrompt: string;
  kind: RequestKind;
  schemaInPrompt: boolean;
  worktree: string;
  mode?: PermissionMode;
}): string {
  const rules =
    input.kind === 'utility'
      ? utilityRules()
      : `${modeRules(input.mode ?? 'auto_edit')}${sessionRules(input.worktree)}`;
  const schema = input.schemaInPrompt ? `\n\n${schemaBlock()}` : '';
  return `${rules}${schema}${SEPARATOR}${input.userPrompt}`;
}

/** The one repair round-trip after a reply that did not parse. */
export function buildRepairPrompt(diagnostic: string, schemaInPrompt: boolean): string {
  return [
    'Your last message could not be read by Grove: it must be exactly one JSON object with `answer`, `questions` and `summary`, and nothing after it.',
    `What was wrong: ${diagnostic}`,
    'Do not redo any work. Reply again with only that JSON object, restating your answer.',
    schemaInPrompt ? schemaBlock() : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}
