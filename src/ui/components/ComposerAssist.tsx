import { Text } from 'ink';
import type { ComposerAssist } from '../../domain/composer-assist.js';
import type { IssueList } from '../../domain/issue.js';
import { assistLines } from '../composer-assist-layout.js';
import type { Theme } from '../theme.js';

/** The `@` and slash pickers, the history search, attached images and the error line, under the composer. */
export function ComposerAssistLines({
  assist,
  history,
  width,
  theme,
  issues = null,
}: {
  issues?: IssueList | null;
  assist: ComposerAssist | undefined;
  history: readonly string[];
  width: number;
  theme: Theme;
}) {
  return (
    <>
      {assistLines(assist, history, width, issues).map((line, i) => (
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
