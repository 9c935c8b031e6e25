// Text in which every code point is a grapheme cluster of its own: no mark
// or joiner (\p{M}, ZWNJ, ZWJ, the two non-mark spacing marks and the
// halfwidth sound marks), no prepend character, no Hangul jamo, no CR (CR LF
// is one cluster), nothing outside the Basic Multilingual Plane. For such
// text, measuring and tokenizing can go code unit by code unit instead of
// through ICU's grapheme segmenter (build patches string-width-simple-text
// and ansi-tokenize-simple-text in xtask/dependency-patches.mjs);
// test/unit/simple-text.test.ts checks every such code point against the
// segmenter and string-width.
const JOINS =
  // Each code point of the class is tested alone; ZWJ among them is meant.
  // eslint-disable-next-line no-misleading-character-class
  /[\p{M}\r\u200C\u200D\u0E33\u0EB3\uFF9E\uFF9F\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u0D4E\u1100-\u11FF\uA960-\uA97F\uD7B0-\uD7FF\uD800-\uDFFF\u{10000}-\u{10FFFF}]/u;

/** True when no two code points of `text` can form one grapheme cluster. */
export function isSimpleText(text) {
  return !JOINS.test(text);
}

/** `text`'s code units as the segmenter's segments (for simple text, the same ones). */
export function* simpleSegments(text) {
  for (let index = 0; index < text.length; index++)
    yield { segment: text[index], index, input: text };
}

/**
 * A single code point's width the way string-width 8 measures a cluster of
 * one code point, through `eastAsianWidth` and the caller's visible-character
 * expression. For one code point, string-width's \p{RGI_Emoji} test is the
 * same as \p{Emoji_Presentation} (the test checks every one), which V8
 * compiles in a tenth of a millisecond instead of 17 ms and 2 MB.
 */
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
const widths = new Map();

/** The width of simple text (see isSimpleText), memoized per code point. */
export function simpleTextWidth(text, ambiguousAsWide, visibleCharacter, eastAsianWidth) {
  let known = widths.get(ambiguousAsWide);
  if (known === undefined) {
    // 0: not measured yet; otherwise the width plus one.
    known = new Uint8Array(0x10000);
    widths.set(ambiguousAsWide, known);
  }
  let width = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    let stored = known[code];
    if (stored === 0) {
      const character = text[index];
      const measured = !visibleCharacter.test(character)
        ? 0
        : EMOJI_PRESENTATION.test(character)
          ? 2
          : eastAsianWidth(code, { ambiguousAsWide });
      stored = measured + 1;
      known[code] = stored;
    }
    width += stored - 1;
  }
  return width;
}
