import { Text } from 'ink';
import type { ComposerAssist } from '../../domain/composer-assist.js';
import type { Theme } from '../theme.js';
import { cellWidth, fit, truncate } from '../text.js';

/** One line under the composer box, with its colour and highlight. */
interface AssistLine {
  readonly text: string;
  readonly color?: 'accent' | 'muted' | 'error';
  readonly selected?: boolean;
}

function assistLines(
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

/** The `@` and slash pickers, the history search, attached images and the error line, under the composer. */
export function ComposerAssistLines({
  assist,
  history,
  width,
  theme,
}: {
  assist: ComposerAssist | undefined;
  history: readonly string[];
  width: number;
  theme: Theme;
}) {
  return (
    <>
      {assistLines(assist, history, width).map((line, i) => (
        <Text
          key={i}
          wrap="truncate-end"
          inverse={line.selected === true}
          color={line.color ? theme[line.color] : undefined}
        >
          {' '}
          {line.text}
        </Text>
      ))}
    </>
  );
}
