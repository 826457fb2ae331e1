/**
 * Running an order command: read the order's stream, fold it with `evolve`, `decide`, check what was
 * decided against the event schemas, and append it with the stream's version as the expected version. When another writer appended in between
 * (ConcurrencyError), the command is decided again on the new state: 50 concurrent cancellations of one
 * order thus append one OrderCancelled, and 50 concurrent creations one OrderCreated.
 */
import { ConcurrencyError, type EventStore, type StoredEvent } from '../store/types.js';
import { decide, commandUid, type OrderCommand } from './decider.js';
import { checkOrderEvent, orderStreamId, parseOrderEvent } from './events.js';
import { foldOrderEvents } from './order-state.js';

const MAX_ATTEMPTS = 10;

export interface CommandResult {
  /** Global position of the last appended event; null when the command changed nothing. */
  position: number | null;
}

export async function handleOrderCommand(store: EventStore, command: OrderCommand): Promise<CommandResult> {
  const streamId = orderStreamId(commandUid(command));
  // A new order's stream is almost always empty, so creation first decides on an empty stream without
  // reading it; the append's expected version 0 checks that, and a ConcurrencyError sends it the usual way.
  let stored: StoredEvent[] | undefined = command.type === 'CreateOrder' ? [] : undefined;
  for (let attempt = 1; ; attempt++) {
    stored ??= await store.readStream(streamId);
    const state = foldOrderEvents(stored.map(parseOrderEvent));
    const events = decide(command, state).map(checkOrderEvent);
    if (events.length === 0) return { position: null };
    try {
      const appended = await store.append(streamId, events, stored.length);
      return { position: appended.position };
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || attempt >= MAX_ATTEMPTS) throw err;
      stored = undefined;
    }
  }
}
