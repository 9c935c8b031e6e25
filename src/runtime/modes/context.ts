import type { AppIntents } from '../../app/intents.js';
import type { AppEvent } from '../../app/events.js';
import type { AppState } from '../../app/state.js';

/** What a mode handler sees: the current snapshot, the reducer, and the app's intents (`AppIntents`). */
export interface KeyContext {
  readonly state: AppState;
  apply(event: AppEvent): void;
  readonly intents: AppIntents;
}
