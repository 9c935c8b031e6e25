// Grove: string-width for CommonJS callers. cli-table3 and yargs's cliui and
// wrap-ansi ask for string-width 4, which was CommonJS and exported the
// function itself (and as `default`); Grove's `overrides` give them this fork
// (README.md). The same function as index.js, called the same way:
// stringWidth(string) is the width, options optional.
'use strict';
const stringWidth = require('./index.js').default;
module.exports = stringWidth;
module.exports.default = stringWidth;
