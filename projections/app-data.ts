/**
 * Read model `app_data`: one document per app data hash, the full app data document registered for it
 * (AppDataRegistered). GET /api/v1/app_data/{hash} and the orders' fullAppData read it.
 */
import type { Projection } from '../src/readmodels/types.js';
import type { AppDataRegisteredData } from '../src/orderbook/commands/book-events.js';

export interface AppDataDoc {
  fullAppData: string;
}

export const appDataProjection: Projection<AppDataDoc> = {
  name: 'app_data',
  version: 1,
  keysOf: (event) => (event.type === 'AppDataRegistered' ? [(event.data as AppDataRegisteredData).hash] : []),
  // Documents are immutable: the first registration stands.
  apply: (doc, event) => doc ?? { fullAppData: (event.data as AppDataRegisteredData).fullAppData },
  columns: {},
};
