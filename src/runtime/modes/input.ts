// The text-editing keys every text field shares (the composer, a question's
// free text, the diff's comment editor and search, popups' inputs, the session
// search): the key → edit table is in domain/composer.ts, applied here.
import type { TextBuffer } from '../../domain/composer.js';
import { applyEdit, editActionForKey, insertText } from '../../domain/composer.js';
import type { Key } from '../../domain/keys.js';

/** Applies an editing key to a buffer; null when the key is not an edit. */
export function editBuffer(buffer: TextBuffer, key: Key): TextBuffer | null {
  const edit = editActionForKey(key);
  if (edit) return applyEdit(buffer, edit);
  if (key.text !== undefined && !key.ctrl && !key.alt) return insertText(buffer, key.text);
  return null;
}
