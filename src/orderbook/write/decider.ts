/**
 * The order decider in the Emmett shape: `decide(command, state) → events` and `evolve(state, event) →
 * state` from `initialState()`, pure and without I/O. The command handler (command-handler.ts) folds the
 * order's stream (`orderStreamId(uid)`), decides, and appends the events with the stream's version as the
 * expected version; an empty result appends nothing. Refusals are OrderbookErrors.
 */
import { decideCancelOrder, type CancelOrder } from './cancel-order.js';
import {
  decideInvalidateOrder,
  decideRecordTrade,
  decideRevertChainEvent,
  decideSetPresignature,
  type InvalidateOrder,
  type RecordTrade,
  type RevertChainEvent,
  type SetPresignature,
} from './chain-facts.js';
import { decideCreateOrder, type CreateOrder } from './create-order.js';
import { checkOrderEvent, orderStreamId, parseOrderEvent, type OrderEvent } from './events.js';
import type { Decider } from './command-handler.js';
import { evolve, initialState, type OrderState } from './order-state.js';

export type { CancelOrder, CreateOrder, InvalidateOrder, RecordTrade, RevertChainEvent, SetPresignature };

export type OrderCommand = CreateOrder | CancelOrder | RecordTrade | InvalidateOrder | SetPresignature | RevertChainEvent;

export function decide(command: OrderCommand, state: OrderState): OrderEvent[] {
  switch (command.type) {
    case 'CreateOrder':
      return decideCreateOrder(command, state);
    case 'CancelOrder':
      return decideCancelOrder(command, state);
    case 'RecordTrade':
      return decideRecordTrade(command, state);
    case 'InvalidateOrder':
      return decideInvalidateOrder(command, state);
    case 'SetPresignature':
      return decideSetPresignature(command, state);
    case 'RevertChainEvent':
      return decideRevertChainEvent(command, state);
  }
}

/** The uid whose stream a command goes to. */
export function commandUid(command: OrderCommand): string {
  return command.type === 'CreateOrder' ? command.data.order.uid : command.data.uid;
}

/** The stream a command goes to. */
export function commandStreamId(command: OrderCommand): string {
  return orderStreamId(commandUid(command));
}

export const orderDecider: Decider<OrderCommand, OrderEvent, OrderState> = {
  decide,
  evolve,
  initialState,
  parse: parseOrderEvent,
  check: checkOrderEvent,
};
