/** A validation worker thread (see pool.ts): validates each order of a message, answers them in one. */
import { parentPort } from 'node:worker_threads';
import { OrderbookError, type OrderbookErrorCode } from '../../domain/errors.js';
import { validateOrderCreation, type OrderValidationContext, type ValidatedOrder } from '../../domain/order.js';

export interface ValidationJob {
  id: number;
  body: unknown;
  context: OrderValidationContext;
}

export type ValidationOutcome =
  | { id: number; order: ValidatedOrder }
  | { id: number; refusal: { code: OrderbookErrorCode; description: string } }
  | { id: number; fault: string };

function outcomeOf({ id, body, context }: ValidationJob): ValidationOutcome {
  try {
    return { id, order: validateOrderCreation(body, context) };
  } catch (err) {
    if (err instanceof OrderbookError) return { id, refusal: { code: err.code, description: err.description } };
    return { id, fault: (err as Error).stack ?? String(err) };
  }
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (jobs: ValidationJob[]) => port.postMessage(jobs.map(outcomeOf)));
}
