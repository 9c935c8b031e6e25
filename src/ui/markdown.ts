import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { LruCache } from './render-cache.js';
import { wrapStyled } from './text.js';

// Markdown → terminal text through marked + marked-terminal (headings, lists,
// code blocks, tables, links). Loaded just before the first answer is laid
// out (ui/transcript-lines.ts, whenAnswerNeeded), because it and its
// highlighter are large; a Grove that only shows the list never loads it.
//
// marked-terminal's own reflow counts characters, not cells (a line of
// Chinese came out twice as wide as the screen and was cut), and splits
// words between the halves of an emoji. So it only joins each paragraph's
// lines (its width is too large to ever break one), and every line it
// writes is then wrapped to the screen in cells by ui/text.ts.

const renderers = new Map<number, Marked>();
/** Wide enough that marked-terminal's reflow never breaks a line. */
const UNWRAPPED = 1_000_000;

/** Keyed by width and text; bounded. */
const cache = new LruCache<string[]>(256);

function rendererFor(width: number): Marked {
  let marked = renderers.get(width);
  if (!marked) {
    marked = new Marked();
    // The published types lag behind marked's extension type.
    marked.use(
      markedTerminal({
        width: UNWRAPPED,
        reflowText: true,
        tab: 2,
        showSectionPrefix: false,
      }) as Parameters<Marked['use']>[0],
    );
    // marked-terminal prints the inline tokens of tight list items raw
    // (`**bold**`, `[link](url)`); render them like paragraph text.
    marked.use({
      renderer: {
        // A rule as wide as the screen (marked-terminal draws it as wide as its reflow width).
        hr() {
          return `${'-'.repeat(Math.max(1, width - 1))}\n\n`;
        },
        text(token) {
          return 'tokens' in token && token.tokens
            ? this.parser.parseInline(token.tokens)
            : token.text;
        },
      },
    });
    renderers.set(width, marked);
  }
  return marked;
}

/** An SGR sequence (`ESC [ … m`). */
// eslint-disable-next-line no-control-regex -- the point is to find escape sequences
const SGR = /\u001b\[([0-9;]*)m/g;

/**
 * The line without its colour codes (foreground, background, 256 and RGB
 * colours); bold, italic, underline and the like stay, as NO_COLOR allows.
 */
function withoutColour(line: string): string {
  return line.replace(SGR, (_, params: string) => {
    const kept: string[] = [];
    const codes = params.split(';');
    for (let i = 0; i < codes.length; i++) {
      const code = Number(codes[i]);
      if (code === 38 || code === 48) {
        // 38;5;N or 38;2;R;G;B: the colour's own numbers go with it.
        i += codes[i + 1] === '5' ? 2 : 4;
        continue;
      }
      if ((code >= 30 && code <= 49) || (code >= 90 && code <= 107)) continue;
      kept.push(codes[i] ?? '');
    }
    return kept.length === 0 ? '' : `\u001b[${kept.join(';')}m`;
  });
}

/**
 * The answer renderer for a terminal that allows colour or not (NO_COLOR,
 * `colourAllowed` in ui/theme.ts): marked-terminal colours through chalk,
 * which does not read NO_COLOR, so without colour its colour codes go.
 */
export function markdownRenderer(colour: boolean): (text: string, width: number) => string[] {
  return colour ? renderMarkdown : (text, width) => renderMarkdown(text, width, false);
}

export function renderMarkdown(text: string, width: number, colour = true): string[] {
  const key = `${colour ? 'c' : 'p'}${width}\u0000${text}`;
  const cached = cache.get(key);
  if (cached) return cached;
  let out: string[];
  try {
    const rendered = rendererFor(width).parse(text, { async: false });
    out = rendered
      .replace(/\n+$/, '')
      .split('\n')
      .flatMap((line) => wrapStyled(colour ? line : withoutColour(line), width));
  } catch {
    out = text.split('\n').flatMap((line) => wrapStyled(line, width));
  }
  cache.set(key, out);
  return out;
}
