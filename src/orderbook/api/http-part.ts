/**
 * The order book on the service's HTTP listeners (src/http/server.ts hands it /api/...): the running order
 * book's handler, or, while there is none, why (503 while it starts or is down, 404 when it is off), in
 * CoW's `{errorType, description}` shape like every other order book answer. It also tells the access
 * layer where a key travels (X-Api-Key: optional here, as CoW's API is public), what a route costs and
 * which routes are the operator's, and answers its refusals in CoW's shape (429 TooManyRequests).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpPart } from '../../http/server.js';
import type { AccessRefusal } from '../../access/errors.js';
import { sendJson } from '../../http/io.js';
import { answerOf, type ErrorAnswer } from './errors.js';
import { isOperatorRoute, routeCost, type ApiCosts } from './route-costs.js';

/** What answers /api/... now: the running order book's handler, or the answer that says why there is none. */
export type OrderbookNow =
  | { handler(req: IncomingMessage, res: ServerResponse): Promise<void> }
  | { absent: ErrorAnswer };

/** errorTypes of refusals made before the order book saw the request. */
const REFUSAL_TYPES: Record<number, string> = {
  400: 'MalformedRequest',
  401: 'Unauthorized',
  408: 'RequestTimeout',
  421: 'MisdirectedRequest',
  429: 'TooManyRequests',
  431: 'HeadersTooLarge',
};

const refusalBody = (status: number, description: string) => JSON.stringify({ errorType: REFUSAL_TYPES[status] ?? 'BadRequest', description });

function send(res: ServerResponse, answer: ErrorAnswer): void {
  if (!res.headersSent) sendJson(res, answer.status, JSON.stringify(answer.body));
  else res.destroy();
}

export function orderbookFront(now: () => OrderbookNow, costs: ApiCosts): HttpPart {
  return {
    serve(req: IncomingMessage, res: ServerResponse): void | Promise<void> {
      const book = now();
      if ('handler' in book) return book.handler(req, res);
      send(res, book.absent);
    },
    fail: (res: ServerResponse, err: unknown) => send(res, answerOf(err)),
    unavailable: (res: ServerResponse) =>
      send(res, { status: 503, body: { errorType: 'ServiceUnavailable', description: 'the service is starting' } }),
    refusalBody,
    accessRefusalBody: (refusal: AccessRefusal) => refusalBody(refusal.status, refusal.message),
    keyOf: (req: IncomingMessage) => {
      const header = req.headers['x-api-key'];
      return typeof header === 'string' && header !== '' ? header : undefined;
    },
    costOf: (method: string, path: string) => routeCost(costs, method, path),
    isOperatorRoute: (_method: string, path: string) => isOperatorRoute(path),
  };
}
