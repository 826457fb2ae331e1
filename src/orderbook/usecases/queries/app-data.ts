/**
 * GET /api/v1/app_data/{hash}: the full app data document registered under a hash. Documents live in the
 * log (stream `app-data-<hash>`, write/register-app-data.ts): a replay has them, every instance sharing the
 * store finds them, and a stream read by id needs no read model of its own.
 */
import { isAppDataHash } from '../../domain/app-data.js';
import { orderbookErrors } from '../../domain/errors.js';
import { appDataStreamId } from '../../write/book-events.js';
import { appDataDecider } from '../../write/register-app-data.js';
import type { Book } from '../book.js';

/** A hash from a path: lowercase, InvalidAppDataHash unless 0x + 64 hex digits. */
export function parseAppDataHash(value: string): string {
  if (!isAppDataHash(value)) throw orderbookErrors.invalidAppDataHash(value);
  return value.toLowerCase();
}

/** The document of `hash` (lowercase), or null. */
export async function appDataDocument(book: Pick<Book, 'events'>, hash: string): Promise<string | null> {
  const { state } = await book.events.aggregateStream(
    appDataStreamId(hash),
    (s, e) => appDataDecider.evolve(s, appDataDecider.parse(e)),
    appDataDecider.initialState(),
  );
  return state.fullAppData;
}

/** GET /api/v1/app_data/{hash}: `{fullAppData}`, NotFound (404) when the hash has no document. */
export async function getAppData(book: Pick<Book, 'events'>, hashParam: string): Promise<{ fullAppData: string }> {
  const hash = parseAppDataHash(hashParam);
  const fullAppData = await appDataDocument(book, hash);
  if (fullAppData === null) throw orderbookErrors.notFound(`full app data for ${hash}`);
  return { fullAppData };
}
