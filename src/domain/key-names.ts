/** How a key id is shown to people: `ctrl+c` → `Ctrl+C`. */
export function displayKey(id: string): string {
  const names: Record<string, string> = {
    enter: 'Enter',
    escape: 'Esc',
    tab: 'Tab',
    up: '↑',
    down: '↓',
    left: '←',
    right: '→',
    home: 'Home',
    end: 'End',
    pageup: 'PgUp',
    pagedown: 'PgDn',
    backspace: 'Backspace',
    space: 'Space',
  };
  return id
    .split('+')
    .map((part, index, parts) => {
      if (index < parts.length - 1) return part.charAt(0).toUpperCase() + part.slice(1);
      return names[part] ?? (parts.length > 1 ? part.toUpperCase() : part);
    })
    .join('+');
}

/** `j/↓` style label for a row. */
export function displayKeys(row: { readonly keys: readonly string[] }): string {
  return row.keys.map(displayKey).join('/');
}
