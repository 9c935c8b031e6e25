import type { Session } from './session.js';
import {
  KEYMAP,
  type ActionOf,
  type Binding,
  type BindingSubject,
  type ModeName,
} from './keymap.js';

// The key-binding table in use, and the lookups every key handler, the
// footer and the help make in it: KEYMAP as it ships, or with the keys the
// person set in GROVE_HOME/keys.json (key-bindings.ts).

/** A key-binding table: KEYMAP, or KEYMAP with the person's keys (key-bindings.ts). */
export type Keymap = Readonly<Record<ModeName, readonly Binding[]>>;

let active: Keymap = KEYMAP;

/** Makes `keymap` the table every key handler, the footer and the help read from now on. */
export function setKeymap(keymap: Keymap): void {
  active = keymap;
}

/** The rows of `mode` in the table in use. */
export function bindingsOf(mode: ModeName): readonly Binding[] {
  return active[mode];
}

/** The action bound to `keyId` in `mode`, respecting status rules. */
export function actionFor<M extends ModeName>(
  mode: M,
  keyId: string,
  session?: Pick<Session, 'status'>,
): ActionOf<M> | undefined {
  for (const row of active[mode]) {
    if (!row.keys.includes(keyId)) continue;
    if (!isAvailable(row, session)) continue;
    return row.action as ActionOf<M>;
  }
  return undefined;
}

export function isAvailable(row: Binding, session?: Pick<Session, 'status'>): boolean {
  if (!row.statuses || !session) return true;
  return row.statuses.includes(session.status);
}

/** Rows that apply right now (for help and footer): the status allows them and the session has what they need. */
export function availableBindings(mode: ModeName, session?: BindingSubject): Binding[] {
  return active[mode].filter(
    (row) =>
      isAvailable(row, session) &&
      (!row.needs ||
        !session ||
        (row.needs === 'pullRequest' ? session.pullRequest === true : session.bestOf === true)),
  );
}
