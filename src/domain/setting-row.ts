// The shape of one row of the Settings tab (domain/settings.ts lists them),
// apart so that modules that add rows of their own (session-hook.ts) do not
// import the list that imports them.

/** Settings keys Grove stores. Project rows live in `project_setting`, global ones in `setting`. */
export type SettingScope = 'global' | 'project';

export interface SettingRow {
  readonly key: string;
  readonly label: string;
  readonly scope: SettingScope;
  readonly kind: 'choice' | 'text';
  readonly description: string;
  /** Choices given the current values (for choice rows). */
  choices(values: SettingValues): readonly string[];
  fallback(values: SettingValues): string;
  /** Why a typed value (text rows) cannot be stored, or null when it can (`values`: the settings now, with the values never stored such as the known hosts). */
  validate?(value: string, values?: SettingValues): string | null;
}

export type SettingValues = Readonly<Record<string, string>>;
