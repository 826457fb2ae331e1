/** A validation worker thread (see pool.ts): validates each order of a message, answers them in one, in order. */
import { parentPort } from 'node:worker_threads';
import { OrderbookError, type OrderbookErrorCode } from '../../domain/errors.js';
import { validateOrderCreation, type OrderValidationContext, type ValidatedOrder } from '../../domain/order.js';

export interface ValidationJob {
  body: unknown;
  context: OrderValidationContext;
}

export type ValidationOutcome =
  | { order: ValidatedOrder }
  | { refusal: { code: OrderbookErrorCode; description: string } }
  | { fault: string };

function outcomeOf({ body, context }: ValidationJob): ValidationOutcome {
  try {
    return { order: validateOrderCreation(body, context) };
  } catch (err) {
    if (err instanceof OrderbookError) return { refusal: { code: err.code, description: err.description } };
    return { fault: (err as Error).stack ?? String(err) };
  }
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (jobs: ValidationJob[]) => port.postMessage(jobs.map(outcomeOf)));
}
