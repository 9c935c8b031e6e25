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

export function renderMarkdown(text: string, width: number): string[] {
  const key = `${width}\u0000${text}`;
  const cached = cache.get(key);
  if (cached) return cached;
  let out: string[];
  try {
    const rendered = rendererFor(width).parse(text, { async: false });
    out = rendered
      .replace(/\n+$/, '')
      .split('\n')
      .flatMap((line) => wrapStyled(line, width));
  } catch {
    out = text.split('\n').flatMap((line) => wrapStyled(line, width));
  }
  cache.set(key, out);
  return out;
}
