/**
 * The app data decider: stream `app-data-<hash>` holds one AppDataRegistered, the document whose keccak256
 * is the hash. Documents are immutable, so the decision is whether the stream has its event yet:
 * RegisterAppData appends it once and nothing after (PUT /api/v1/app_data answers 201, then 200). Pure, in
 * the shape of the order decider (decider.ts), run by the same command handler.
 */
import type { NewEvent } from '../store/types.js';
import { appDataRegistered, type AppDataRegistered, type AppDataRegisteredData } from './book-events.js';
import { EVENT_SCHEMA_VERSION } from './events.js';

export interface RegisterAppData {
  type: 'RegisterAppData';
  /** The hash must be the document's keccak256 (domain/app-data.ts computes it). */
  data: AppDataRegisteredData;
}

export interface AppDataState {
  /** The registered document, or null while the stream is empty. */
  fullAppData: string | null;
}

export function initialAppDataState(): AppDataState {
  return { fullAppData: null };
}

export function decideRegisterAppData(command: RegisterAppData, state: AppDataState): AppDataRegistered[] {
  return state.fullAppData === null ? [appDataRegistered(command.data)] : [];
}

export function evolveAppData(state: AppDataState, event: AppDataRegistered): AppDataState {
  return state.fullAppData === null ? { fullAppData: event.data.fullAppData } : state;
}

/** An event of an app data stream as the log holds it: only AppDataRegistered is ever appended there. */
export function parseAppDataEvent(stored: NewEvent): AppDataRegistered {
  if (stored.type !== 'AppDataRegistered' || stored.schemaVersion !== EVENT_SCHEMA_VERSION) {
    throw new Error(`unknown app data event ${stored.type} (schemaVersion ${stored.schemaVersion})`);
  }
  return stored as AppDataRegistered;
}

export const appDataDecider = {
  decide: decideRegisterAppData,
  evolve: evolveAppData,
  initialState: initialAppDataState,
  parse: parseAppDataEvent,
  // appDataRegistered checked the data against its schema when the decider made the event.
  check: (event: AppDataRegistered) => event,
};
