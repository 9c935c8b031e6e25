import type { ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { AppState, Popup as PopupState } from '../../app/state.js';
import type { Theme } from '../theme.js';
import { cellWidth, fit, sliceCells, spinner, wrapPlain } from '../text.js';
import {
  dialogTextRows,
  helpInner,
  helpLinesFor,
  helpWindow,
  popupTop,
  popupWidth,
} from '../popup-layout.js';

/** A popup line: plain text, or styled content with the cells it takes. */
type Line =
  | string
  | { readonly node: ReactNode; readonly length: number; readonly color?: string | undefined };

/**
 * Popups are drawn over the page. Every cell inside the border is written
 * (lines are padded to the full width) so the page never shows through.
 */
function Frame({
  state,
  theme,
  title,
  width,
  lines,
  top,
}: {
  state: AppState;
  theme: Theme;
  title: string;
  width: number;
  lines: readonly Line[];
  /** The row the top border goes on. */
  top: number;
}) {
  const left = Math.max(0, Math.floor((state.columns - width) / 2));
  const inner = width - 2;
  return (
    <Box position="absolute" marginLeft={left} marginTop={top} width={width} flexDirection="column">
      <Box borderStyle="round" borderColor={theme.accent} flexDirection="column" width={width}>
        <Text bold color={theme.accent}>
          {fit(` ${title}`, inner)}
        </Text>
        {lines.map((line, i) =>
          typeof line === 'string' ? (
            <Text key={i}>{fit(` ${line}`, inner)}</Text>
          ) : (
            <Text key={i} color={line.color}>
              {' '}
              {line.node}
              {' '.repeat(Math.max(0, inner - 1 - line.length))}
            </Text>
          ),
        )}
      </Box>
    </Box>
  );
}

function wrapAll(lines: readonly string[], width: number): string[] {
  return lines.flatMap((line) => wrapPlain(line, width));
}

export function PopupView({
  state,
  theme,
  popup,
  panelRows,
}: {
  state: AppState;
  theme: Theme;
  popup: PopupState;
  /** Rows of the page's bottom panel, which a question stays above. */
  panelRows: number;
}) {
  const width = popupWidth(state, popup);
  const inner = width - 4;
  const maxLines = dialogTextRows(state);
  // The border and the title take three rows.
  const top = (lines: readonly Line[]): number =>
    popupTop(state, popup, lines.length + 3, panelRows);
  switch (popup.kind) {
    case 'confirm': {
      const buttons: Line = {
        length: 5 + 2 + 4 + 20,
        node: (
          <>
            <Text inverse={popup.yes}>{' Yes '}</Text>
            {'  '}
            <Text inverse={!popup.yes}>{' No '}</Text>
            <Text color={theme.muted}>{'   y/n · ←/→ · Enter'}</Text>
          </>
        ),
      };
      const lines: Line[] = [...wrapAll(popup.lines, inner).slice(0, maxLines - 2), '', buttons];
      return (
        <Frame
          state={state}
          theme={theme}
          title={popup.title}
          width={width}
          lines={lines}
          top={top(lines)}
        />
      );
    }
    case 'info': {
      const lines = wrapAll(popup.lines, inner).slice(0, maxLines - 1);
      const title = popup.busy ? `${spinner(state.now)} ${popup.title}` : popup.title;
      const footer: Line = {
        node: popup.busy ? 'Working… Esc hides this' : 'Enter or Esc closes',
        length: popup.busy ? 23 : 19,
        color: theme.muted,
      };
      return (
        <Frame
          state={state}
          theme={theme}
          title={title}
          width={width}
          lines={[...lines, footer]}
          top={top([...lines, footer])}
        />
      );
    }
    case 'input': {
      const { text, cursor } = popup.buffer;
      // The field scrolls by cells so the cursor stays in view: what is
      // before it keeps at most inner - 2 cells, what follows fills the rest.
      const typed = text.slice(0, cursor);
      const typedWidth = cellWidth(typed);
      const before =
        cellWidth(text) > inner - 1
          ? sliceCells(typed, Math.max(0, typedWidth - (inner - 2)), typedWidth)
          : typed;
      const at = text.slice(cursor, cursor + 1);
      const atWidth = at === '' ? 1 : cellWidth(at);
      const room = Math.max(0, inner - 1 - cellWidth(before) - atWidth);
      const after = sliceCells(text.slice(cursor + 1), 0, room);
      const field: Line = {
        length: cellWidth(before) + atWidth + cellWidth(after),
        node: (
          <>
            {before}
            <Text inverse>{at || ' '}</Text>
            {after}
          </>
        ),
      };
      const help: Line = { node: 'Enter saves · Esc cancels', length: 25, color: theme.muted };
      return (
        <Frame
          state={state}
          theme={theme}
          title={popup.title}
          width={width}
          lines={[field, help]}
          top={top([field, help])}
        />
      );
    }
    case 'help': {
      const { lines: all, keysWidth } = helpLinesFor(state);
      const helpWidth = Math.max(1, helpInner(state) - keysWidth);
      const { start, visible, total } = helpWindow(state, all.length);
      const rows: Line[] = all.slice(start, start + visible).map((line) => ({
        node: (
          <>
            <Text color={theme.accent}>{fit(line.keys, keysWidth)}</Text>
            {fit(line.help, helpWidth)}
          </>
        ),
        length: keysWidth + helpWidth,
      }));
      const more =
        total > visible ? `${start + 1}–${start + rows.length} of ${total} · j/k scroll · ` : '';
      const footer: Line = {
        node: `${more}Esc or ? closes`,
        length: cellWidth(more) + 15,
        color: theme.muted,
      };
      return (
        <Frame
          state={state}
          theme={theme}
          title="Keys"
          width={width}
          lines={[...rows, footer]}
          top={top([...rows, footer])}
        />
      );
    }
    default:
      return null;
  }
}
