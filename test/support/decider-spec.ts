/**
 * Given-events / when-command / then-events specifications of a decider (write/decider.ts,
 * write/register-app-data.ts), in the form Emmett's DeciderSpecification gives them:
 *
 *   spec.given([orderCreated(order)]).when(cancel).then([orderCancelled(...)]);
 *   spec.given([]).when(cancel).then({ errorType: 'OrderNotFound', status: 404 });
 *
 * The given events are folded as the command handler folds a stream read back from the log (through JSON
 * and the decider's parse); the decided events are checked against their schemas (the decider's check) and
 * compared through JSON, as the log would hold them. A refusal must be an OrderbookError with that
 * errorType (and status, when given). `then` gives the decided events and the state they lead to.
 */
import assert from 'node:assert/strict';
import type { NewEvent } from '../../src/orderbook/store/types.js';
import type { Decider } from '../../src/orderbook/write/command-handler.js';
import { OrderbookError } from '../../src/orderbook/domain/errors.js';
import { statusOf } from '../../src/orderbook/api/errors.js';

export interface ExpectedRefusal {
  errorType: string;
  status?: number;
}

export interface Outcome<Event, State> {
  events: Event[];
  /** The state after the given events and the decided ones. */
  state: State;
}

const asStored = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export function deciderSpec<Command, Event extends NewEvent, State>(decider: Decider<Command, Event, State>) {
  const fold = (events: readonly Event[], from: State) =>
    events.reduce((state, event) => decider.evolve(state, decider.parse(asStored(event))), from);
  return {
    given(events: readonly Event[]) {
      return {
        when(command: Command) {
          return {
            then(expected: readonly Event[] | ExpectedRefusal): Outcome<Event, State> {
              // A spec is not a promise: `() => spec...then(x)` handed to mocha would be awaited through `then`.
              if (typeof expected === 'function') throw new Error('a decider spec is not a promise: give `it` a block body');
              const state = fold(events, decider.initialState());
              if (!Array.isArray(expected)) {
                const refusal = expected as ExpectedRefusal;
                assert.throws(
                  () => decider.decide(command, state),
                  (err: unknown) => {
                    assert.ok(err instanceof OrderbookError, `an OrderbookError, not ${String(err)}`);
                    assert.equal(err.errorType, refusal.errorType);
                    if (refusal.status !== undefined) assert.equal(statusOf(err), refusal.status);
                    return true;
                  },
                );
                return { events: [], state };
              }
              const decided = decider.decide(command, state).map((event) => decider.check(event) as Event);
              assert.deepEqual(asStored(decided), asStored(expected));
              return { events: decided, state: fold(decided, state) };
            },
          };
        },
      };
    },
  };
}
