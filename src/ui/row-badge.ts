// The shape of a session row's badge, shared by the list row and the layouts
// that make badges (checks-layout.ts) without importing each other.

export type BadgeTone = 'muted' | 'accent' | 'warn' | 'error';

/** A badge after a row's title, with the short form a narrow row shows. */
export interface RowBadge {
  readonly full: string;
  readonly short: string;
  readonly tone: BadgeTone;
  readonly bold?: boolean;
}
