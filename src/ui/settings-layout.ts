import { SETTING_ROWS } from '../domain/settings.js';
import { cellWidth } from './text.js';

/**
 * The Settings tab's label column: as wide as the longest label and a gap, so
 * a label is never cut; the value takes what is left of the row.
 */
export function settingsLabelWidth(): number {
  return Math.max(...SETTING_ROWS.map((row) => cellWidth(row.label))) + 2;
}
