// Remote commands are ONE string: ssh joins its arguments with spaces and the
// host user's login shell reads the result again. So every word Grove sends
// (a prompt, JSON settings, a path with spaces, quotes, `$`, backticks or
// newlines) is quoted here for a POSIX shell (sh, dash, bash, zsh, ksh), never
// by hand at a call site.

/**
 * `word` as one POSIX shell word that means exactly `word`: inside single
 * quotes nothing is special, and a single quote itself is written `'\''`
 * (end the quotes, an escaped quote, open them again). NUL cannot be passed
 * in an argument at all, so it is refused.
 */
export function shellQuote(word: string): string {
  if (word.includes('\0')) throw new Error('a shell word cannot hold a NUL character');
  // Plain words stay bare; '=' never first (zsh expands `=cmd` to its path).
  if (/^[A-Za-z0-9_/.,:@%+-][A-Za-z0-9_/.,:=@%+-]*$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A command line for a POSIX shell: each word quoted, joined by spaces. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}
