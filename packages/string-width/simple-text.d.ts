/** True when no two code points of `text` can form one grapheme cluster. */
export function isSimpleText(text: string): boolean;

/** `text`'s code units as Intl.Segmenter's segments (for simple text, the same ones). */
export function simpleSegments(
  text: string,
): Generator<{ segment: string; index: number; input: string }>;
