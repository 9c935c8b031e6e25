import wrapAnsi from 'wrap-ansi';
import sanitizeAnsi from './sanitize-ansi.js';
// --- Grove: sanitize only text that needs it (packages/ink/README.md, change 3) ---
const GROVE_NEEDS_SANITIZING = /[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f]|\u001b(?!\[[\d;]*m)/;
const GROVE_SGR_BEFORE_MARK = /\u001b\[[\d;]*m\p{M}/u;
const GROVE_C1_FORMS = /[\u009b-\u009d]/;
function groveNeedsSanitizing(text) {
    return GROVE_NEEDS_SANITIZING.test(text) || (text.includes('\u001b') && GROVE_SGR_BEFORE_MARK.test(text));
}
// --- end Grove ---

// Squashing text nodes allows to combine multiple text nodes into one and write
// to `Output` instance only once. For example, <Text>hello{' '}world</Text>
// is actually 3 text nodes, which would result 3 writes to `Output`.
//
// Also, this is necessary for libraries like ink-link (https://github.com/sindresorhus/ink-link),
// which need to wrap all children at once, instead of wrapping 3 text nodes separately.
const squashTextNodes = (node) => {
    let text = '';
    for (const childNode of node.childNodes) {
        let nodeText = '';
        if (childNode.nodeName === '#text') {
            nodeText = childNode.nodeValue;
        }
        else {
            if (childNode.isHidden) {
                continue;
            }
            if (childNode.nodeName === 'ink-text' ||
                childNode.nodeName === 'ink-virtual-text') {
                nodeText = squashTextNodes(childNode);
            }
            // Since these text nodes are being concatenated, `Output` instance won't be able to
            // apply children transform, so we have to do it manually here for each text node
            if (nodeText.length > 0 &&
                typeof childNode.internal_transform === 'function') {
                const transform = childNode.internal_transform;
                // Grove: a one-line child's transform, without splitting and joining it (packages/ink/README.md, change 3)
                nodeText = !nodeText.includes('\n') ? transform(nodeText, 0) : nodeText
                    .split('\n')
                    .map((line, lineIndex) => transform(line, lineIndex))
                    .join('\n');
            }
        }
        text += nodeText;
    }
    // Grove: text the sanitizer would return unchanged skips it (packages/ink/README.md, change 3)
    text = groveNeedsSanitizing(text) ? sanitizeAnsi(text.replaceAll('\r\n', '\n')) : text;
    // Measurement and styling dependencies understand the ESC forms of these C1 controls.
    // Grove: the C1 forms are rewritten only when the text holds one (packages/ink/README.md, change 3)
    if (GROVE_C1_FORMS.test(text)) text = text.replaceAll('', '[').replaceAll('', ']').replaceAll('', '\\');
    // Expand tabs after combining nested text so measurement and rendering use the same columns.
    if (node.nodeName === 'ink-text' && text.includes('\t')) {
        text = wrapAnsi(text, Infinity, { trim: false });
    }
    return text;
};
export default squashTextNodes;
