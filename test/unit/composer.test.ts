import { describe, expect, it } from 'vitest';
import {
  applyEdit,
  bufferFrom,
  cursorPosition,
  editActionForKey,
  emptyBuffer,
  insertText,
  type EditAction,
  type TextBuffer,
} from '../../src/domain/composer.js';
import { parseKeyId } from '../../src/domain/keys.js';

/** `|` marks the cursor. */
function at(marked: string): TextBuffer {
  const cursor = marked.indexOf('|');
  return { ...bufferFrom(marked.replace('|', '')), cursor };
}

function show(b: TextBuffer): string {
  return `${b.text.slice(0, b.cursor)}|${b.text.slice(b.cursor)}`;
}

describe('composer editing', () => {
  it.each([
    ['hello wor|ld', 'wordLeft', 'hello |world'],
    ['hello |world', 'wordLeft', '|hello world'],
    ['foo.bar(|', 'wordLeft', 'foo.|bar('],
    ['|hello world', 'wordRight', 'hello| world'],
    ['hello| world', 'wordRight', 'hello world|'],
    ['one\ntw|o', 'lineStart', 'one\n|two'],
    ['on|e\ntwo', 'lineEnd', 'one|\ntwo'],
    ['one\ntw|o', 'inputStart', '|one\ntwo'],
    ['on|e\ntwo', 'inputEnd', 'one\ntwo|'],
    ['abc|', 'backspace', 'ab|'],
    ['|abc', 'backspace', '|abc'],
    ['a|bc', 'delete', 'a|c'],
    ['say hello|', 'deleteWordBack', 'say |'],
    ['keep\nremove th|is', 'deleteLine', 'keep\n|is'],
    ['keep |this\nnext', 'killToLineEnd', 'keep |\nnext'],
    ['end|\nnext', 'killToLineEnd', 'end|next'],
    ['abcdef\nx|y', 'up', 'a|bcdef\nxy'],
    ['abc|def\nxy', 'down', 'abcdef\nxy|'],
    ['first|', 'up', '|first'],
    ['a😀|b', 'left', 'a|😀b'],
    ['a|😀b', 'right', 'a😀|b'],
    ['a😀|', 'backspace', 'a|'],
    ['ab|', 'newline', 'ab\n|'],
  ] as [string, EditAction, string][])('%j with %s gives %j', (before, action, after) => {
    expect(show(applyEdit(at(before), action))).toBe(after);
  });

  it('undoes a typed word in one step and redoes it', () => {
    let b = emptyBuffer;
    for (const char of 'hi there') b = insertText(b, char);
    expect(b.text).toBe('hi there');
    b = applyEdit(b, 'undo');
    expect(b.text).toBe('hi ');
    b = applyEdit(b, 'undo');
    expect(b.text).toBe('hi');
    b = applyEdit(b, 'redo');
    expect(b.text).toBe('hi ');
  });

  it('forgets redo after a new edit', () => {
    let b = insertText(emptyBuffer, 'x');
    b = applyEdit(b, 'undo');
    b = insertText(b, 'y');
    expect(applyEdit(b, 'redo').text).toBe('y');
  });

  it('reports line and column of the cursor', () => {
    expect(cursorPosition(at('one\ntw|o'))).toEqual({ line: 1, column: 2 });
  });

  it.each([
    ['ctrl+a', 'lineStart'],
    ['ctrl+e', 'lineEnd'],
    ['alt+b', 'wordLeft'],
    ['alt+f', 'wordRight'],
    ['alt+left', 'wordLeft'],
    ['ctrl+w', 'deleteWordBack'],
    ['alt+backspace', 'deleteWordBack'],
    ['ctrl+u', 'deleteLine'],
    ['ctrl+k', 'killToLineEnd'],
    ['ctrl+z', 'undo'],
    ['ctrl+y', 'redo'],
    ['ctrl+shift+z', 'redo'],
    ['shift+enter', 'newline'],
    ['alt+enter', 'newline'],
    ['ctrl+j', 'newline'],
    ['home', 'inputStart'],
    ['enter', null],
    ['a', null],
  ])('maps %s to %s', (id, action) => {
    expect(editActionForKey(parseKeyId(id))).toBe(action);
  });
});
