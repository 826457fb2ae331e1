/**
 * Running commands, the same way for every decider (orders, app data): fold the stream
 * (EventStore.aggregateStream), decide, check what was decided against the event schemas, and append it
 * with the stream's version as the expected version. When another writer appended in between
 * (ConcurrencyError), the command is decided again on the new state: 50 concurrent cancellations of one
 * order thus append one OrderCancelled, and 50 concurrent creations one OrderCreated.
 *
 * Several decisions on several streams (handleAll) are decided in order, a refusal of any refusing all, and
 * appended in one multi-stream append, all or nothing: a bulk cancellation, or an order with the app data
 * it came with. A concurrent append to any of their streams makes the whole append fail; all are then
 * decided again.
 */
import { ConcurrencyError, type EventStore, type NewEvent, type StreamAppend } from '../store/types.js';

const MAX_ATTEMPTS = 10;

/**
 * A decider in the Emmett shape, pure: `decide(command, state) → events`, `evolve(state, event) → state`
 * from `initialState()`. `parse` reads an event back from the log, `check` checks a decided one before it
 * is appended.
 */
export interface Decider<Command, Event extends NewEvent, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
  parse(stored: NewEvent): Event;
  check(event: Event): NewEvent;
}

export interface DecisionOptions {
  /**
   * The stream is almost always empty (a new order's): decide on the initial state without reading it
   * first; the append's expected version 0 checks that, and a ConcurrencyError sends it the usual way.
   */
  fresh?: boolean;
}

/** One command for one stream, with its decider: what handleAll runs. */
export interface Decision {
  streamId: string;
  /** The events decided on the stream as the store has it now (or as empty: `assumeEmpty`), and its version. */
  decide(store: EventStore, assumeEmpty: boolean): Promise<{ events: NewEvent[]; version: number }>;
  fresh: boolean;
}

export interface CommandResult {
  /** Global position of the last appended event; null when the commands changed nothing. */
  position: number | null;
}

export function decision<Command, Event extends NewEvent, State>(
  decider: Decider<Command, Event, State>,
  streamId: string,
  command: Command,
  options: DecisionOptions = {},
): Decision {
  const evolve = (state: State, stored: NewEvent) => decider.evolve(state, decider.parse(stored));
  return {
    streamId,
    fresh: options.fresh ?? false,
    async decide(store, assumeEmpty) {
      const { state, version } = assumeEmpty
        ? { state: decider.initialState(), version: 0 }
        : await store.aggregateStream(streamId, evolve, decider.initialState());
      return { events: decider.decide(command, state).map((event) => decider.check(event)), version };
    },
  };
}

/** Runs one command on one stream. */
export function handle<Command, Event extends NewEvent, State>(
  store: EventStore,
  decider: Decider<Command, Event, State>,
  streamId: string,
  command: Command,
  options: DecisionOptions = {},
): Promise<CommandResult> {
  return handleAll(store, [decision(decider, streamId, command, options)]);
}

/** Runs commands on distinct streams and appends what they decide together, all or nothing. */
export async function handleAll(store: EventStore, decisions: readonly Decision[]): Promise<CommandResult> {
  for (let attempt = 1; ; attempt++) {
    const appends: StreamAppend[] = [];
    for (const d of decisions) {
      const { events, version } = await d.decide(store, attempt === 1 && d.fresh);
      if (events.length > 0) appends.push({ streamId: d.streamId, events, expected: version });
    }
    if (appends.length === 0) return { position: null };
    try {
      if (appends.length === 1) {
        const [{ streamId, events, expected }] = appends;
        return { position: (await store.append(streamId, events, expected)).position };
      }
      const results = await store.appendStreams(appends);
      return { position: results[results.length - 1].position };
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}
