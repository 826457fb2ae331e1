/**
 * The order book on the service's HTTP listeners (src/http/server.ts hands it /api/...): the running order
 * book's handler, or, while there is none, why (503 while it starts or is down, 404 when it is off), in
 * CoW's `{errorType, description}` shape like every other order book answer. It also tells the access
 * layer where a key travels (X-Api-Key: optional here, as CoW's API is public), what a route costs and
 * which routes are the operator's, and answers its refusals in CoW's shape (429 TooManyRequests).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpPart, ListenerRefusal, PartAnswer } from '../../http/server.js';
import type { AccessRefusal } from '../../access/errors.js';
import { sendJson } from '../../http/io.js';
import { orderbookErrors, type OrderbookError } from '../domain/errors.js';
import { accessRefusal, answerOf, listenerRefusal, type ErrorAnswer } from './errors.js';
import { isOperatorRoute, routeCost, type ApiCosts } from './route-costs.js';

/** What answers /api/... now: the running order book's handler, or the answer that says why there is none. */
export type OrderbookNow =
  | { handler(req: IncomingMessage, res: ServerResponse): Promise<void> }
  | { absent: OrderbookError };

/** An order book error as the listeners send it: its status and JSON body. */
function partAnswer(error: OrderbookError): PartAnswer {
  const { status, body } = answerOf(error);
  return { status, body: JSON.stringify(body) };
}

function send(res: ServerResponse, answer: ErrorAnswer): void {
  if (!res.headersSent) sendJson(res, answer.status, JSON.stringify(answer.body));
  else res.destroy();
}

export function orderbookFront(now: () => OrderbookNow, costs: ApiCosts): HttpPart {
  return {
    serve(req: IncomingMessage, res: ServerResponse): void | Promise<void> {
      const book = now();
      if ('handler' in book) return book.handler(req, res);
      send(res, answerOf(book.absent));
    },
    fail: (res: ServerResponse, err: unknown) => send(res, answerOf(err)),
    unavailable: (res: ServerResponse) => send(res, answerOf(orderbookErrors.unavailable('the service is starting'))),
    refusal: (kind: ListenerRefusal, description: string) => partAnswer(listenerRefusal(kind, description)),
    accessRefusal: (refusal: AccessRefusal) => partAnswer(accessRefusal(refusal)),
    keyOf: (req: IncomingMessage) => {
      const header = req.headers['x-api-key'];
      return typeof header === 'string' && header !== '' ? header : undefined;
    },
    costOf: (method: string, path: string) => routeCost(costs, method, path),
    isOperatorRoute: (_method: string, path: string) => isOperatorRoute(path),
  };
}
