// execa is loaded on first use: nothing before the first frame needs it, and
// leaving it out of the start-up path keeps Grove's start fast.
import type * as execaModule from 'execa';

type Execa = typeof execaModule;

let loading: Promise<Execa> | undefined;

/** The execa module, imported once. */
export function loadExeca(): Promise<Execa> {
  loading ??= import('execa');
  return loading;
}
