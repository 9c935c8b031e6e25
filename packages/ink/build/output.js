import stringWidth from 'string-width';
import { ansiCodesToString, diffAnsiCodes, reduceAnsiCodesIncremental, styledCharsToString, tokenize, } from '@alcalzone/ansi-tokenize';
// --- Grove: faster frames (packages/ink/README.md, change 2) ---
// One blank cell object for every empty cell (cells are replaced, never changed).
const BLANK_CELL = Object.freeze({ type: 'char', value: ' ', fullWidth: false, styles: Object.freeze([]) });
// Characters in a run of the same style share one styles array, so comparing
// neighbours is usually one reference check.
function sharedStyledChars(tokens) {
    let codes = [];
    let shared = codes;
    const chars = [];
    for (const token of tokens) {
        if (token.type === 'ansi') {
            codes = reduceAnsiCodesIncremental(codes, [token]);
            shared = null;
        }
        else if (token.type === 'char') {
            shared ??= [...codes];
            chars.push({ ...token, styles: shared });
        }
    }
    return chars;
}
function sameStyles(a, b) {
    if (a === b) return true;
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
        if (a[i].code !== b[i].code || a[i].endCode !== b[i].endCode) return false;
    }
    return true;
}
// The escape codes that open a style, and that go from one style to another,
// by style array: the arrays are shared by the cells kept across frames, so
// each is worked out once instead of once per style change per frame.
const GROVE_NO_STYLES = Object.freeze([]);
const groveOpenings = new WeakMap();
const groveTransitions = new WeakMap();
function groveOpening(styles) {
    let text = groveOpenings.get(styles);
    if (text === undefined) {
        text = ansiCodesToString(styles);
        groveOpenings.set(styles, text);
    }
    return text;
}
function groveTransition(from, to) {
    let byTarget = groveTransitions.get(from);
    if (byTarget === undefined) {
        byTarget = new WeakMap();
        groveTransitions.set(from, byTarget);
    }
    let text = byTarget.get(to);
    if (text === undefined) {
        text = ansiCodesToString(diffAnsiCodes(from, to));
        byTarget.set(to, text);
    }
    return text;
}
// styledCharsToString, skipping the diff between neighbours of the same style (always empty).
function fastStyledCharsToString(chars) {
    let ret = '';
    for (let i = 0; i < chars.length; i++) {
        const char = chars[i];
        if (i === 0) ret += groveOpening(char.styles);
        else if (!sameStyles(chars[i - 1].styles, char.styles)) ret += groveTransition(chars[i - 1].styles, char.styles);
        ret += char.value;
        if (i === chars.length - 1 && char.styles.length > 0) ret += groveTransition(char.styles, GROVE_NO_STYLES);
    }
    return ret;
}
// Text with no escape, no C1 control and no default-ignorable character
// comes back from tokenizing and joining its cells unchanged: its lines are
// its split, without a cell object and a style diff per character.
const GROVE_NOT_PLAIN = /[\u001b\u0080-\u009f\p{Default_Ignorable_Code_Point}]/u;
function groveIsPlain(text) {
    return !GROVE_NOT_PLAIN.test(text);
}
// Each row of the last frame, with its cells and its text. Cells are shared
// across frames (the caches below), so a row whose cells are the very same
// objects as last frame's has last frame's text: most rows, when one line
// of the screen changes.
let groveRows = [];
// A styled text's lines (each with its styles restated), kept across frames
// with the caches below: the same texts are on screen frame after frame.
let groveLines = new Map();
function groveReusedRow(cells, y) {
    const previous = groveRows[y];
    if (previous === undefined || previous.cells.length !== cells.length) return undefined;
    for (let x = 0; x < cells.length; x++) if (previous.cells[x] !== cells[x]) return undefined;
    return previous.text;
}
function groveRememberRow(cells, y, text) {
    groveRows[y] = { cells, text };
    return text;
}
// The tokenized lines and widths are kept across frames (ink makes a new
// Output per frame), bounded.
let sharedOutputCaches;
function outputCaches() {
    if (!sharedOutputCaches || sharedOutputCaches.styledChars.size > 2000 || sharedOutputCaches.widths.size > 20000 || groveLines.size > 2000) {
        sharedOutputCaches = new OutputCaches();
        groveRows = [];
        groveLines = new Map();
    }
    return sharedOutputCaches;
}
// --- end Grove ---

// Replaces a partially visible wide character with a space that keeps its styles.
const blankCell = (cell) => ({
    ...cell,
    value: ' ',
    fullWidth: false,
});
// An undefined bound means "unbounded on this edge", so intersecting keeps whichever bound is defined and takes the tighter one when both are.
const intersectBound = (a, b, tighter) => {
    if (a === undefined) {
        return b;
    }
    return b === undefined ? a : tighter(a, b);
};
// Bounds are half-open: `x2`/`y2` are exclusive, so an axis is empty as soon as its lower bound reaches its upper one.
const isClipEmpty = (clip) => (clip.x1 !== undefined && clip.x2 !== undefined && clip.x1 >= clip.x2) ||
    (clip.y1 !== undefined && clip.y2 !== undefined && clip.y1 >= clip.y2);
const intersectClips = (outer, inner) => {
    if (!outer) {
        return inner;
    }
    return {
        x1: intersectBound(outer.x1, inner.x1, Math.max),
        x2: intersectBound(outer.x2, inner.x2, Math.min),
        y1: intersectBound(outer.y1, inner.y1, Math.max),
        y2: intersectBound(outer.y2, inner.y2, Math.min),
    };
};
class OutputCaches {
    widths = new Map();
    blockWidths = new Map();
    styledChars = new Map();
    getStyledChars(line) {
        let cached = this.styledChars.get(line);
        if (cached === undefined) {
            // Standalone invisible Unicode characters must not occupy terminal cells.
            // Grove: characters of one style run share one styles array (packages/ink/README.md, change 2)
            cached = sharedStyledChars(tokenize(line)).filter(character => !/^\p{Default_Ignorable_Code_Point}+$/u.test(character.value));
            this.styledChars.set(line, cached);
        }
        return cached;
    }
    getStringWidth(text) {
        let cached = this.widths.get(text);
        if (cached === undefined) {
            cached = stringWidth(text);
            this.widths.set(text, cached);
        }
        return cached;
    }
    getWidestLine(text) {
        let cached = this.blockWidths.get(text);
        if (cached === undefined) {
            let lineWidth = 0;
            for (const line of text.split('\n')) {
                lineWidth = Math.max(lineWidth, this.getStringWidth(line));
            }
            cached = lineWidth;
            this.blockWidths.set(text, cached);
        }
        return cached;
    }
}
export default class Output {
    operations = [];
    // Grove: tokenized lines and widths kept across frames (packages/ink/README.md, change 2)
    caches = outputCaches();
    width;
    height;
    constructor(options) {
        const { width, height } = options;
        this.width = width;
        this.height = height;
    }
    applyWriteOperation(output, operation, clip) {
        const { text, transformers } = operation;
        let { x, y } = operation;
        // Preserve styles across explicit newlines before clipping individual rows.
        let lines;
        // Grove: plain text is its own lines; styled text's lines are kept across frames (packages/ink/README.md, change 2)
        if (groveIsPlain(text)) lines = text.split('\n');
        else if (groveLines.has(text)) lines = groveLines.get(text).slice();
        else {
        const characterLines = [[]];
        for (const character of this.caches.getStyledChars(text)) {
            if (character.value === '\n') {
                characterLines.push([]);
            }
            else {
                characterLines.at(-1).push(character);
            }
        }
        lines = characterLines.map(line => styledCharsToString(line));
        groveLines.set(text, lines);
        }
        if (clip) {
            // Two nested clips can intersect to nothing. Nothing is visible, so bail out before slicing.
            if (isClipEmpty(clip)) {
                return;
            }
            const shouldClipHorizontally = typeof clip?.x1 === 'number' && typeof clip?.x2 === 'number';
            const shouldClipVertically = typeof clip?.y1 === 'number' && typeof clip?.y2 === 'number';
            // If text is positioned outside of clipping area altogether,
            // skip to the next operation to avoid unnecessary calculations
            if (shouldClipHorizontally) {
                const width = this.caches.getWidestLine(text);
                if (x + width < clip.x1 || x > clip.x2) {
                    return;
                }
            }
            if (shouldClipVertically) {
                const height = lines.length;
                if (y + height < clip.y1 || y > clip.y2) {
                    return;
                }
            }
            if (shouldClipHorizontally) {
                lines = lines.map(line => {
                    const from = x < clip.x1 ? clip.x1 - x : 0;
                    const width = this.caches.getStringWidth(line);
                    const to = x + width > clip.x2 ? clip.x2 - x : width;
                    return this.sliceLineToColumns(line, from, to);
                });
                if (x < clip.x1) {
                    x = clip.x1;
                }
            }
            if (shouldClipVertically) {
                const from = y < clip.y1 ? clip.y1 - y : 0;
                const height = lines.length;
                const to = y + height > clip.y2 ? clip.y2 - y : height;
                lines = lines.slice(from, to);
                if (y < clip.y1) {
                    y = clip.y1;
                }
            }
        }
        // Grove: without an entries() iterator (packages/ink/README.md, change 2)
        for (let index = 0; index < lines.length; index++) {
            let line = lines[index];
            const currentLine = output[y + index];
            // Lines above or below the output area have no corresponding pre-initialized row.
            if (!currentLine) {
                continue;
            }
            for (const transformer of transformers) {
                line = transformer(line, index + y - operation.y);
            }
            const characters = this.caches.getStyledChars(line);
            // Nothing to write (e.g. line was clipped away).
            if (characters.length === 0) {
                continue;
            }
            let offsetX = x;
            // Wide characters (e.g. CJK) occupy two cells: a leading
            // cell with the character and a trailing placeholder with
            // value ''. When an overlapping write lands in the middle
            // of a wide character, the boundary cells need cleanup so
            // the terminal never renders a half-visible wide character.
            // Preserve the styles of cells outside the overlapping write.
            if (currentLine[offsetX]?.value === '' &&
                offsetX > 0 &&
                this.caches.getStringWidth(currentLine[offsetX - 1]?.value ?? '') > 1) {
                currentLine[offsetX - 1] = blankCell(currentLine[offsetX - 1]);
            }
            for (const character of characters) {
                currentLine[offsetX] = character;
                // Determine printed width using string-width to align with measurement
                const characterWidth = Math.max(1, this.caches.getStringWidth(character.value));
                // For multi-column characters, clear following cells to avoid stray spaces/artifacts
                if (characterWidth > 1) {
                    for (let offset = 1; offset < characterWidth; offset++) {
                        currentLine[offsetX + offset] = {
                            type: 'char',
                            // Preserve visible cells when the leading cell is outside the output.
                            value: offsetX < 0 ? ' ' : '',
                            fullWidth: false,
                            styles: character.styles,
                        };
                    }
                }
                offsetX += characterWidth;
            }
            if (currentLine[offsetX]?.value === '') {
                currentLine[offsetX] = blankCell(currentLine[offsetX]);
            }
        }
    }
    write(x, y, text, options) {
        const { transformers } = options;
        if (text === '') {
            return;
        }
        this.operations.push({
            type: 'write',
            x,
            y,
            text,
            transformers,
        });
    }
    clip(clip) {
        this.operations.push({
            type: 'clip',
            clip,
        });
    }
    unclip() {
        this.operations.push({
            type: 'unclip',
        });
    }
    // Clipping works in terminal columns. A wide character (e.g. CJK) occupies two cells, so when a clip edge falls between its halves, the character must be replaced by a space that keeps its styles, otherwise its background disappears and the rest of the line shifts by a column.
    sliceLineToColumns(line, from, to) {
        if (from >= to) {
            return '';
        }
        const result = [];
        let column = 0;
        for (const character of this.caches.getStyledChars(line)) {
            const width = this.caches.getStringWidth(character.value);
            const start = column;
            column += width;
            if (column <= from) {
                continue;
            }
            if (start >= to) {
                break;
            }
            if (width > 1 && (start < from || column > to)) {
                // Only part of this wide character is visible, so keep the cell count and styles, but drop the glyph itself.
                result.push(blankCell(character));
            }
            else {
                result.push(character);
            }
        }
        return styledCharsToString(result);
    }
    get() {
        // Initialize output array with a specific set of rows, so that margin/padding at the bottom is preserved
        const output = [];
        for (let y = 0; y < this.height; y++) {
            const row = [];
            for (let x = 0; x < this.width; x++) {
                // Grove: one shared blank cell (packages/ink/README.md, change 2)
                row.push(BLANK_CELL);
            }
            output.push(row);
        }
        const clips = [];
        for (const operation of this.operations) {
            if (operation.type === 'clip') {
                // Nested clips must intersect, not replace, otherwise an inner `overflow="hidden"` box lets content escape the outer clip and overwrite surrounding UI.
                clips.push(intersectClips(clips.at(-1), operation.clip));
            }
            else if (operation.type === 'unclip') {
                clips.pop();
            }
            else {
                this.applyWriteOperation(output, operation, clips.at(-1));
            }
        }
        const generatedOutput = output
            .map((line, y) => {
            // Grove: a row of the same cells as last frame's has its text (packages/ink/README.md, change 2)
            // (see https://github.com/vadimdemedes/ink/pull/564#issuecomment-1637022742 for the filter below)
            const reused = groveReusedRow(line, y);
            if (reused !== undefined) return reused;
            const lineWithoutEmptyItems = line.filter(item => item !== undefined);
            return groveRememberRow(line, y, fastStyledCharsToString(lineWithoutEmptyItems).trimEnd());
        })
            .join('\n');
        return {
            output: generatedOutput,
            height: output.length,
        };
    }
}
