/**
 * GET /api/v1/openapi.json: the order book API as OpenAPI 3.1, whose JSON Schema dialect is the one of
 * schemas/: bodies, answers and query parameters come from the same schema files the API validates with.
 */
import { inlinedSchema } from '../../schemas.js';

const COMPONENTS: Record<string, string> = {
  OrderCreation: 'orderbook/order-creation.schema.json',
  Order: 'orderbook/order.schema.json',
  OrderCancellation: 'orderbook/order-cancellation.schema.json',
  FeeInformation: 'orderbook/fee-information.schema.json',
  Trade: 'orderbook/trade.schema.json',
  Error: 'orderbook/error.schema.json',
  Domain: 'orderbook/domain.schema.json',
  StoredEvent: 'orderbook/stored-event.schema.json',
  ProjectionsStatus: 'orderbook/projections-status.schema.json',
  ReplayVerification: 'orderbook/replay-verification.schema.json',
};

const eventStream = (description: string) => ({ description, content: { 'text/event-stream': { schema: { type: 'string' } } } });

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json(ref('Error')) });
const arrayOf = (name: string) => ({ type: 'array', items: ref(name) });

/** Query parameters from a query schema's properties. */
function queryParameters(file: string): object[] {
  const schema = inlinedSchema(file) as { properties: Record<string, { description?: string }> };
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: false,
    description: property.description,
    schema: property,
  }));
}

const uidParameter = {
  name: 'UID',
  in: 'path',
  required: true,
  schema: inlinedSchema('orderbook/primitives.schema.json#/$defs/orderUid'),
};

let document: object | undefined;

export function openApiDocument(): object {
  document ??= {
    openapi: '3.1.0',
    info: {
      title: 'ethgate order book',
      version: '1',
      description:
        'An event-sourced order book wire-compatible with the CoW Protocol order book API v1, plus endpoints for auditors.',
    },
    paths: {
      '/api/v1/orders': {
        get: {
          summary: 'Orders: by default the currently valid ones; filters narrow, include flags widen.',
          parameters: queryParameters('orderbook/queries/orders-query.schema.json'),
          responses: { 200: { description: 'Orders', ...json(arrayOf('Order')) }, 400: error('Bad query') },
        },
        post: {
          summary: 'Create an order.',
          requestBody: { required: true, ...json(ref('OrderCreation')) },
          responses: {
            201: { description: 'The order UID', ...json(inlinedSchema('orderbook/primitives.schema.json#/$defs/orderUid')) },
            400: error('Invalid order (errorType says why)'),
            413: error('Body too large'),
          },
        },
      },
      '/api/v1/orders/{UID}': {
        parameters: [uidParameter],
        get: {
          summary: 'One order.',
          responses: { 200: { description: 'The order', ...json(ref('Order')) }, 400: error('Bad UID'), 404: error('OrderNotFound') },
        },
        delete: {
          summary: 'Cancel an order with a signed OrderCancellation; the answer has an empty body.',
          requestBody: { required: true, ...json(ref('OrderCancellation')) },
          responses: {
            200: { description: 'Cancelled' },
            400: error('Invalid cancellation, or the order cannot be cancelled'),
            401: error('WrongOwner: signed by someone other than the owner'),
            404: error('OrderNotFound'),
          },
        },
      },
      '/api/v1/orders/{UID}/events': {
        parameters: [uidParameter],
        get: {
          summary: "The order's events, oldest first (for auditors).",
          responses: { 200: { description: 'Events', ...json(arrayOf('StoredEvent')) }, 404: error('OrderNotFound') },
        },
      },
      '/api/v1/solvable_orders': {
        get: {
          summary: 'Orders solvers should solve now. Answers carry an ETag; If-None-Match gives 304 when unchanged.',
          responses: { 200: { description: 'Orders', ...json(arrayOf('Order')) }, 304: { description: 'Not modified' } },
        },
      },
      '/api/v1/trades': {
        get: {
          summary: 'Trades, oldest first, paginated (limit default 100, at most 1000).',
          parameters: queryParameters('orderbook/queries/trades-query.schema.json'),
          responses: { 200: { description: 'Trades', ...json(arrayOf('Trade')) }, 400: error('Bad query') },
        },
      },
      '/api/v1/tokens/{sellToken}/fee': {
        parameters: [
          { name: 'sellToken', in: 'path', required: true, schema: inlinedSchema('orderbook/primitives.schema.json#/$defs/address') },
        ],
        get: {
          summary: 'The fee for placing an order selling this token.',
          responses: {
            200: { description: 'Fee', ...json(ref('FeeInformation')) },
            400: error('Bad address'),
            404: error('NotFound: the token cannot be priced'),
          },
        },
      },
      '/api/v1/domain': {
        get: { summary: 'The EIP-712 domain orders are signed in.', responses: { 200: { description: 'Domain', ...json(ref('Domain')) } } },
      },
      '/api/v1/events': {
        get: {
          summary: 'The global event log, a page at a time (for auditors).',
          parameters: queryParameters('orderbook/queries/events-query.schema.json'),
          responses: { 200: { description: 'Events', ...json(arrayOf('StoredEvent')) }, 400: error('Bad query') },
        },
      },
      '/api/v1/events/stream': {
        get: {
          summary:
            'The event log as Server-Sent Events: `id:` the position, `data:` the /events item. Resumes after the ' +
            'Last-Event-ID header (or ?after=; default: from now); a heartbeat comment at least every ' +
            'STREAM_HEARTBEAT_MS; a client leaving more than STREAM_MAX_BUFFERED_BYTES unread gets a last ' +
            '`slow-consumer` event and is disconnected.',
          parameters: [
            ...queryParameters('orderbook/queries/event-stream-query.schema.json'),
            { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^[0-9]{1,15}$' } },
          ],
          responses: { 200: eventStream('StoredEvent items, one per event'), 400: error('Bad query or Last-Event-ID') },
        },
      },
      '/api/v1/solver/stream': {
        get: {
          summary:
            "Server-Sent Events telling when a solver's view changes: first each view's current id, then one " +
            'event per change, named after the view, with data {view, id}; for solvable_orders the id is the ETag ' +
            'of GET /solvable_orders (to send as If-None-Match).',
          responses: { 200: eventStream('View changes') },
        },
      },
      '/api/v1/projections': {
        get: {
          summary: 'Checkpoint and digest of every read model, to compare with `npm run replay`.',
          responses: { 200: { description: 'Status', ...json(ref('ProjectionsStatus')) } },
        },
      },
      '/api/v1/projections/replay': {
        post: {
          summary:
            'Verify by replay: rebuilds every read model in memory from the log (on a worker thread) up to the ' +
            'position of the live ones and compares the digests. One replay runs at a time.',
          responses: {
            200: { description: 'The comparison', ...json(ref('ReplayVerification')) },
            503: error('The read models kept moving; try again'),
          },
        },
      },
    },
    components: {
      schemas: Object.fromEntries(Object.entries(COMPONENTS).map(([name, file]) => [name, inlinedSchema(file)])),
    },
  };
  return document;
}
