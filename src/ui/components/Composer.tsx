import { Box, Text } from 'ink';
import type { TextBuffer } from '../../domain/composer.js';
import type { Theme } from '../theme.js';

/**
 * The multi-line editor box with its cursor: the prompt composer, and the
 * inline comment editor of the diff view. Shows the last `maxLines` lines.
 */
export function ComposerBox({
  buffer,
  width,
  theme,
  title,
  subtitle,
  maxLines = 6,
}: {
  buffer: TextBuffer;
  width: number;
  theme: Theme;
  title: string;
  subtitle?: string;
  maxLines?: number;
}) {
  const before = buffer.text.slice(0, buffer.cursor);
  const at = buffer.text.slice(buffer.cursor, buffer.cursor + 1);
  const after = buffer.text.slice(buffer.cursor + 1);
  const lines = (before + '\u0000' + (at === '\n' ? ' \n' : at || ' ') + after).split('\n');
  const shown = lines.slice(-maxLines);
  return (
    <Box
      borderStyle="round"
      borderColor={theme.accent}
      flexDirection="column"
      width={width}
      paddingX={1}
    >
      <Text wrap="truncate-end">
        <Text color={theme.accent}>{title}</Text>
        {subtitle ? <Text color={theme.muted}>{`  ·  ${subtitle}`}</Text> : null}
      </Text>
      {shown.map((line, i) => {
        const mark = line.indexOf('\u0000');
        if (mark === -1) return <Text key={i}>{line || ' '}</Text>;
        const cursorChar = line.slice(mark + 1, mark + 2) || ' ';
        return (
          <Text key={i}>
            {line.slice(0, mark)}
            <Text inverse>{cursorChar}</Text>
            {line.slice(mark + 2)}
          </Text>
        );
      })}
    </Box>
  );
}
