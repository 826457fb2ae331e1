/**
 * PUT /api/v1/app_data[/{hash}]: registers a full app data document under its keccak256, through the app
 * data decider (write/register-app-data.ts): the first registration appends AppDataRegistered (201), a
 * later one nothing (200). The body's checks come first: AppDataInvalid, AppDataHashMismatch.
 */
import type { AppDataObject } from '../../generated/orderbook/app-data-object.js';
import { validator } from '../../shared/schemas.js';
import { appDataHashOf, checkFullAppData } from '../domain/app-data.js';
import { orderbookErrors } from '../domain/errors.js';
import { appDataStreamId } from '../write/book-events.js';
import { appDataDecider } from '../write/register-app-data.js';
import { handle } from '../write/command-handler.js';
import { parseAppDataHash } from './queries/app-data.js';
import { isoNow, type Book } from './book.js';

const isAppDataObject = validator<AppDataObject>('orderbook/app-data-object.schema.json');

/** The document's hash and whether it is new (201) or known (200). */
export async function putAppData(
  book: Pick<Book, 'events' | 'clock'>,
  pathHash: string | null,
  body: unknown,
): Promise<{ hash: string; created: boolean }> {
  const expected = pathHash === null ? null : parseAppDataHash(pathHash);
  if (!isAppDataObject(body)) throw orderbookErrors.fromSchema(isAppDataObject.errors, 'appData');
  const fullAppData = checkFullAppData(body.fullAppData, orderbookErrors.appDataInvalid);
  const hash = appDataHashOf(fullAppData);
  if (expected !== null && expected !== hash) throw orderbookErrors.appDataHashMismatch(expected, hash);
  const { position } = await handle(book.events, appDataDecider, appDataStreamId(hash), {
    type: 'RegisterAppData',
    data: { hash, fullAppData, registeredAt: isoNow(book) },
  });
  return { hash, created: position !== null };
}
