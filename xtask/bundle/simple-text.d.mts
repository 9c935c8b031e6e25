export function isSimpleText(text: string): boolean;
export function simpleSegments(
  text: string,
): Generator<{ segment: string; index: number; input: string }>;
export function simpleTextWidth(
  text: string,
  ambiguousAsWide: boolean,
  visibleCharacter: RegExp,
  eastAsianWidth: (codePoint: number, options: { ambiguousAsWide: boolean }) => number,
): number;
