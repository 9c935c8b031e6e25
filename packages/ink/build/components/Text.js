import React, { use } from 'react';
import chalk from 'chalk';
import colorize from '../colorize.js';
import { AccessibilityContext } from './AccessibilityContext.js';
import { BackgroundContext } from './BackgroundContext.js';
// --- Grove: stable Text props (packages/ink/README.md, change 4) ---
// By flags, then colour, then background colour (Map keys tell 'red' from
// any other value, undefined included).
let groveTransforms = [];
let groveTransformCount = 0;
function groveTextTransform(dimColor, color, backgroundColor, bold, italic, underline, strikethrough, inverse, makeTransform) {
    const flags = (dimColor ? 1 : 0) | (bold ? 2 : 0) | (italic ? 4 : 0) | (underline ? 8 : 0) | (strikethrough ? 16 : 0) | (inverse ? 32 : 0);
    const byColor = (groveTransforms[flags] ??= new Map());
    let byBackground = byColor.get(color);
    if (byBackground === undefined) {
        byBackground = new Map();
        byColor.set(color, byBackground);
    }
    let transform = byBackground.get(backgroundColor);
    if (transform === undefined) {
        transform = makeTransform();
        if (++groveTransformCount > 1000) {
            groveTransforms = [];
            groveTransformCount = 0;
        }
        byBackground.set(backgroundColor, transform);
    }
    return transform;
}
const groveTextStyles = new Map();
function groveTextStyle(wrap) {
    let style = groveTextStyles.get(wrap);
    if (style === undefined) {
        style = { flexGrow: 0, flexShrink: 1, flexDirection: 'row', textWrap: wrap };
        groveTextStyles.set(wrap, style);
    }
    return style;
}
// --- end Grove ---

/**
This component can display text and change its style to make it bold, underlined, italic, or strikethrough.
*/
export default function Text({ color, backgroundColor, dimColor = false, bold = false, italic = false, underline = false, strikethrough = false, inverse = false, wrap = 'wrap', children, 'aria-label': ariaLabel, 'aria-hidden': ariaHidden = false, }) {
    const { isScreenReaderEnabled } = use(AccessibilityContext);
    const inheritedBackgroundColor = use(BackgroundContext);
    // Use explicit backgroundColor if provided, otherwise inherit from the nearest parent Text or Box.
    const effectiveBackgroundColor = backgroundColor ?? inheritedBackgroundColor;
    const childrenOrAriaLabel = isScreenReaderEnabled && Boolean(ariaLabel) ? ariaLabel : children;
    if (childrenOrAriaLabel === undefined ||
        childrenOrAriaLabel === null ||
        (isScreenReaderEnabled && ariaHidden)) {
        return null;
    }
    // Grove: the same transform function for the same style props (packages/ink/README.md, change 4)
    const transform = groveTextTransform(dimColor, color, effectiveBackgroundColor, bold, italic, underline, strikethrough, inverse, () => (text) => {
        if (dimColor) {
            text = chalk.dim(text);
        }
        // `colorize` returns the text unchanged when the color is unset.
        text = colorize(text, color, 'foreground');
        text = colorize(text, effectiveBackgroundColor, 'background');
        if (bold) {
            text = chalk.bold(text);
        }
        if (italic) {
            text = chalk.italic(text);
        }
        if (underline) {
            text = chalk.underline(text);
        }
        if (strikethrough) {
            text = chalk.strikethrough(text);
        }
        if (inverse) {
            text = chalk.inverse(text);
        }
        return text;
    });
    return (React.createElement(BackgroundContext, { value: effectiveBackgroundColor },
        // Grove: the same style object for the same wrap mode (packages/ink/README.md, change 4)
        React.createElement("ink-text", { style: groveTextStyle(wrap), internal_transform: isScreenReaderEnabled ? undefined : transform }, childrenOrAriaLabel)));
}
