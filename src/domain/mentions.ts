/**
 * `@path` file mentions in a prompt, and pasted image paths. Pure: the caller
 * says which paths exist.
 */

/** The `@…` word the cursor is in: where it starts (at the `@`) and ends, and the typed query. */
export interface MentionToken {
  readonly start: number;
  readonly end: number;
  readonly query: string;
}

const SPACE = /\s/;

/** The mention being typed at `cursor`, or null (the `@` must start a word). */
export function mentionAt(text: string, cursor: number): MentionToken | null {
  let start = cursor;
  while (start > 0 && !SPACE.test(text.charAt(start - 1))) start--;
  if (text.charAt(start) !== '@') return null;
  let end = cursor;
  while (end < text.length && !SPACE.test(text.charAt(end))) end++;
  const query = text.slice(start + 1, cursor);
  // `@@` or an e-mail-like `@x@y` is not a mention.
  if (query.includes('@')) return null;
  return { start, end, query };
}

/** Every `@path` word of a prompt, as written (without the `@`). */
export function mentionedPaths(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/(^|\s)@([^\s@]+)/g)) out.push(match[2] ?? '');
  return out;
}

/** How an agent CLI takes a file reference in a prompt. */
export type MentionForm = 'at-path' | 'plain-path';

/**
 * The prompt as the agent gets it: for CLIs that do not read `@path`, every
 * mention of an existing file becomes the plain relative path.
 */
export function mentionsForAgent(
  text: string,
  form: MentionForm,
  exists: (path: string) => boolean,
): string {
  if (form === 'at-path') return text;
  return text.replace(/(^|\s)@([^\s@]+)/g, (whole, lead: string, path: string) =>
    exists(path) ? `${lead}${path}` : whole,
  );
}

export const IMAGE_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'webp'] as const;

/** The MIME type of an image file name, or null when it is not one Grove attaches. */
export function imageMimeType(path: string): string | null {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  switch (ext) {
    case 'png':
      return 'image/png';
    case 'jpg':
    case 'jpeg':
      return 'image/jpeg';
    case 'gif':
      return 'image/gif';
    case 'webp':
      return 'image/webp';
    default:
      return null;
  }
}

/**
 * The image path a paste holds, when it is one line naming an image file
 * (terminals paste a dropped file as its path: quoted, as a file:// URL, or
 * with escaped spaces); null otherwise. Whether it exists is the caller's to check.
 */
export function pastedImagePath(text: string): string | null {
  let path = text.trim();
  if (path === '' || path.includes('\n')) return null;
  if ((path.startsWith("'") && path.endsWith("'")) || (path.startsWith('"') && path.endsWith('"')))
    path = path.slice(1, -1);
  if (path.startsWith('file://')) {
    try {
      path = decodeURIComponent(path.slice('file://'.length));
    } catch {
      return null;
    }
  }
  path = path.replace(/\\ /g, ' ');
  if (!path.startsWith('/') && !path.startsWith('~/')) return null;
  return imageMimeType(path) ? path : null;
}
