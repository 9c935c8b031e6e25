// The lines under the composer box (pickers, history search, attached images,
// the error line), shared by the component that draws them and the session
// view's layout, which needs their height.
import { ISSUE_PICKS, type ComposerAssist, type IssuePick } from '../domain/composer-assist.js';
import { pickIssues } from '../domain/issue.js';
import type { IssueList } from '../domain/issue.js';
import { cellWidth, fit, truncate } from './text.js';

/** One line under the composer box, with its colour and highlight. */
interface AssistLine {
  readonly text: string;
  readonly color?: 'accent' | 'muted' | 'error';
  readonly selected?: boolean;
}

/** The issue picker's lines: its filter, then the matching issues or why there are none. */
function issueLines(pick: IssuePick, list: IssueList | null): AssistLine[] {
  const out: AssistLine[] = [
    {
      text: `Issue: ${pick.query}▏  (type to filter, label:x; Enter starts the session from it; Esc closes)`,
      color: 'accent',
    },
  ];
  if (list === null || list.status === 'loading')
    out.push({ text: 'Loading the open issues…', color: 'muted' });
  else if (list.status === 'error') out.push({ text: list.message, color: 'error' });
  else {
    const items = pickIssues(list.issues, pick.query, list.viewer).slice(0, ISSUE_PICKS);
    if (items.length === 0)
      out.push({
        text: list.issues.length === 0 ? 'No open issues.' : 'No issue matches.',
        color: 'muted',
      });
    items.forEach((issue, i) => {
      const mine =
        list.viewer !== null && issue.assignees.includes(list.viewer) ? ' (assigned to you)' : '';
      const labels = issue.labels.length > 0 ? `  [${issue.labels.join(', ')}]` : '';
      out.push({
        text: `${i === pick.selected ? '▶ ' : '  '}#${issue.number} ${issue.title}${labels}${mine}`,
        selected: i === pick.selected,
      });
    });
  }
  return out;
}

export function assistLines(
  assist: ComposerAssist | undefined,
  history: readonly string[],
  width: number,
  issues: IssueList | null = null,
): AssistLine[] {
  if (!assist) return [];
  const out: AssistLine[] = [];
  if (assist.issues) out.push(...issueLines(assist.issues, issues));
  const search = assist.search;
  if (search) {
    const found = search.at === null ? null : (history[search.at] ?? null);
    const shown =
      found === null
        ? search.query === ''
          ? 'type to search the prompt history'
          : 'no match'
        : (found.split('\n')[0] ?? '');
    out.push({ text: `(reverse-i-search) '${search.query}': ${shown}`, color: 'accent' });
  }
  const completion = assist.completion;
  if (completion?.kind === 'file') {
    const items = completion.match?.items ?? null;
    if (items === null) out.push({ text: 'Listing the worktree files…', color: 'muted' });
    else if (items.length === 0)
      out.push({ text: `No file matches @${completion.token.query}`, color: 'muted' });
    else
      items.forEach((path, i) =>
        out.push({
          text: `${i === completion.selected ? '▶ ' : '  '}@${path}`,
          selected: i === completion.selected,
        }),
      );
  } else if (completion?.kind === 'slash') {
    const labelWidth = Math.max(...completion.items.map((item) => cellWidth(item.label))) + 2;
    completion.items.forEach((item, i) =>
      out.push({
        text: `${i === completion.selected ? '▶ ' : '  '}${fit(item.label, labelWidth)}${item.description}`,
        selected: i === completion.selected,
      }),
    );
  }
  if (assist.images.length > 0) {
    out.push({
      text: `Attached: ${assist.images.map((path) => path.split('/').pop() ?? path).join(', ')}`,
      color: 'accent',
    });
  }
  if (assist.error) out.push({ text: assist.error, color: 'error' });
  return out.map((line) => ({ ...line, text: truncate(line.text, Math.max(1, width - 2)) }));
}

/** How many lines the composer's pickers and notes take under its box. */
export function composerAssistHeight(
  assist: ComposerAssist | undefined,
  history: readonly string[],
  width: number,
  issues: IssueList | null = null,
): number {
  return assistLines(assist, history, width, issues).length;
}
