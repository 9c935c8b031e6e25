// The lines under the composer box (pickers, history search, attached images,
// the error line), shared by the component that draws them and the session
// view's layout, which needs their height.
import type { ComposerAssist } from '../domain/composer-assist.js';
import { cellWidth, fit, truncate } from './text.js';

/** One line under the composer box, with its colour and highlight. */
interface AssistLine {
  readonly text: string;
  readonly color?: 'accent' | 'muted' | 'error';
  readonly selected?: boolean;
}

export function assistLines(
  assist: ComposerAssist | undefined,
  history: readonly string[],
  width: number,
): AssistLine[] {
  if (!assist) return [];
  const out: AssistLine[] = [];
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
): number {
  return assistLines(assist, history, width).length;
}
