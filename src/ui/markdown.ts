import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { LruCache } from './render-cache.js';

// Markdown → terminal text through marked + marked-terminal (headings, lists,
// code blocks, tables, links). Loaded just before the first answer is laid
// out (ui/transcript-lines.ts, whenAnswerNeeded), because it and its
// highlighter are large; a Grove that only shows the list never loads it.

const renderers = new Map<number, Marked>();
/** Keyed by width and text; bounded. */
const cache = new LruCache<string[]>(256);

function rendererFor(width: number): Marked {
  let marked = renderers.get(width);
  if (!marked) {
    marked = new Marked();
    // The published types lag behind marked's extension type.
    marked.use(
      markedTerminal({ width, reflowText: true, tab: 2, showSectionPrefix: false }) as Parameters<
        Marked['use']
      >[0],
    );
    // marked-terminal prints the inline tokens of tight list items raw
    // (`**bold**`, `[link](url)`); render them like paragraph text.
    marked.use({
      renderer: {
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
    out = rendered.replace(/\n+$/, '').split('\n');
  } catch {
    out = text.split('\n');
  }
  cache.set(key, out);
  return out;
}
