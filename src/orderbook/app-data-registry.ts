/**
 * Full app data documents (PUT/GET /api/v1/app_data): registered as AppDataRegistered events, one stream
 * per hash, and read back from that stream: the log is where they live (a replay has them, every instance
 * sharing the store finds them), and a stream read by id needs no read model of its own.
 */
import { ConcurrencyError, type EventStore } from './store/types.js';
import type { AppDataObject } from '../generated/orderbook/app-data-object.js';
import { validator } from '../shared/schemas.js';
import { appDataHashOf, checkFullAppData, isAppDataHash, ZERO_APP_DATA } from './domain/app-data.js';
import { orderbookErrors } from './domain/errors.js';
import { appDataRegistered, appDataStreamId, type AppDataRegisteredData } from './write/book-events.js';

const isAppDataObject = validator<AppDataObject>('orderbook/app-data-object.schema.json');

export class AppDataRegistry {
  constructor(
    private readonly events: EventStore,
    private readonly clock: () => number,
  ) {}

  /** A hash from a path: lowercase, InvalidAppDataHash unless 0x + 64 hex digits. */
  static parseHash(value: string): string {
    if (!isAppDataHash(value)) throw orderbookErrors.invalidAppDataHash(value);
    return value.toLowerCase();
  }

  /** PUT /api/v1/app_data[/{hash}]: the document's hash and whether it is new (201) or known (200). */
  async put(pathHash: string | null, body: unknown): Promise<{ hash: string; created: boolean }> {
    const expected = pathHash === null ? null : AppDataRegistry.parseHash(pathHash);
    if (!isAppDataObject(body)) throw orderbookErrors.fromSchema(isAppDataObject.errors, 'appData');
    const full = checkFullAppData(body.fullAppData, orderbookErrors.appDataInvalid);
    const hash = appDataHashOf(full);
    if (expected !== null && expected !== hash) throw orderbookErrors.appDataHashMismatch(expected, hash);
    return { hash, created: await this.register(hash, full) };
  }

  /** Appends AppDataRegistered unless the hash has its document already (the stream's version decides). Whether this call registered it. */
  async register(hash: string, full: string): Promise<boolean> {
    const event = appDataRegistered({ hash, fullAppData: full, registeredAt: new Date(this.clock()).toISOString() });
    try {
      await this.events.append(appDataStreamId(hash), [event], 0);
      return true;
    } catch (err) {
      if (err instanceof ConcurrencyError) return false;
      throw err;
    }
  }

  /**
   * The document an order's app data names, or null: the zero app data (what the seed's clients sign)
   * names none, so orders carrying it cost no read.
   */
  documentOf(hash: string): Promise<string | null> {
    return hash === ZERO_APP_DATA ? Promise.resolve(null) : this.get(hash);
  }

  /** The document of `hash` (lowercase), or null. */
  async get(hash: string): Promise<string | null> {
    const [event] = await this.events.readStream(appDataStreamId(hash));
    return event?.type === 'AppDataRegistered' ? (event.data as AppDataRegisteredData).fullAppData : null;
  }
}
