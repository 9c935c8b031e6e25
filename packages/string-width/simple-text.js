// Grove: text in which every code point is a grapheme cluster of its own: no
// mark or joiner (\p{M}, ZWNJ, ZWJ, the two non-mark spacing marks and the
// halfwidth sound marks), no prepend character, no Hangul jamo, no CR (CR LF
// is one cluster), nothing outside the Basic Multilingual Plane. Such text
// needs no grapheme segmenter: its code units are its clusters. Used by
// index.js (stringWidth) and by Grove's fork of @alcalzone/ansi-tokenize
// (packages/ansi-tokenize); see README.md. Grove's
// test/unit/simple-text.test.ts checks every such code point against the
// segmenter, and both packages against themselves without this fast path.
const JOINS =
  // Each code point of the class is tested alone; ZWJ among them is meant.
  // eslint-disable-next-line no-misleading-character-class
  /[\p{M}\r\u200C\u200D\u0E33\u0EB3\uFF9E\uFF9F\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u0D4E\u1100-\u11FF\uA960-\uA97F\uD7B0-\uD7FF\uD800-\uDFFF\u{10000}-\u{10FFFF}]/u;

/** True when no two code points of `text` can form one grapheme cluster. */
export function isSimpleText(text) {
  return !JOINS.test(text);
}

/** `text`'s code units as Intl.Segmenter's segments (for simple text, the same ones). */
export function* simpleSegments(text) {
  for (let index = 0; index < text.length; index++)
    yield { segment: text[index], index, input: text };
}
