/**
 * GET /api/v1/openapi.json: the order book API as OpenAPI 3.1, whose JSON Schema dialect is the one of
 * schemas/: bodies, answers and query parameters come from the same schema files the API validates with.
 * Each operation names the errorTypes it can give; their answers are made from the error catalogue
 * (openapi-errors.ts), so that the document cannot disagree with the answers.
 */
import { inlinedSchema } from '../../shared/schemas.js';
import { errorTypeOf } from '../domain/errors.js';
import { ANY_PATH, BODY, QUERY, errorAnswer, refusals } from './openapi-errors.js';

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
  // Today's CoW API (cowprotocol/services' openapi.yml).
  OrderQuoteRequest: 'orderbook/order-quote-request.schema.json',
  OrderQuoteResponse: 'orderbook/order-quote-response.schema.json',
  OrderCancellations: 'orderbook/order-cancellations.schema.json',
  AppDataObject: 'orderbook/app-data-object.schema.json',
  CompetitionOrderStatus: 'orderbook/competition-order-status.schema.json',
  NativePriceResponse: 'orderbook/native-price.schema.json',
  TotalSurplus: 'orderbook/total-surplus.schema.json',
  Auction: 'orderbook/auction.schema.json',
  AuctionOrder: 'orderbook/auction-order.schema.json',
  ReplayVerification: 'orderbook/replay-verification.schema.json',
};

const eventStream = (description: string) => ({ description, content: { 'text/event-stream': { schema: { type: 'string' } } } });

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ content: { 'application/json': { schema } } });

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

const primitive = (name: string) => inlinedSchema(`orderbook/primitives.schema.json#/$defs/${name}`);
const uidParameter = () => ({ name: 'UID', in: 'path', required: true, schema: primitive('orderUid') });
const pathParameter = (name: string, primitiveName: string) => ({ name, in: 'path', required: true, schema: primitive(primitiveName) });

/** The endpoints of today's CoW API beside the seed's (docs/orderbook-api.md). */
function todaysPaths(): Record<string, object> {
  const hashParameter = pathParameter('app_data_hash', 'hash32');
  const putAppData = (summary: string) => ({
    summary,
    requestBody: { required: true, ...json(ref('AppDataObject')) },
    responses: {
      200: { description: 'Already known; the hash', ...json(primitive('hash32')) },
      201: { description: 'Registered; the hash', ...json(primitive('hash32')) },
      ...refusals(...BODY, 'MissingOrderData', 'AppDataInvalid', 'AppDataHashMismatch', 'InvalidAppDataHash'),
    },
  });
  return {
    '/api/v1/quote': {
      post: {
        summary: 'Price and fee quote for an order to sign (sellAmount after the fee; sign feeAmount 0 and name the quote id).',
        requestBody: { required: true, ...json(ref('OrderQuoteRequest')) },
        responses: {
          200: { description: 'Quote', ...json(ref('OrderQuoteResponse')) },
          ...refusals(
            ...BODY,
            'MissingOrderData',
            'SameBuyAndSellToken',
            'ZeroAmount',
            'SellAmountDoesNotCoverFee',
            'InsufficientValidTo',
            'InvalidAppData',
            'AppDataHashMismatch',
            'NoLiquidity',
          ),
        },
      },
    },
    '/api/v1/app_data': { put: putAppData('Register a full app data document; answers its hash.') },
    '/api/v1/app_data/{app_data_hash}': {
      parameters: [hashParameter],
      get: {
        summary: 'The full app data document of a hash.',
        responses: { 200: { description: 'Document', ...json(ref('AppDataObject')) }, ...refusals('InvalidAppDataHash', 'NotFound') },
      },
      put: putAppData('Register a full app data document under its hash.'),
    },
    '/api/v1/orders/by_uids': {
      post: {
        summary: 'The known orders among up to 128 UIDs (unknown ones are left out).',
        requestBody: { required: true, ...json({ type: 'array', maxItems: 128, items: primitive('orderUid') }) },
        responses: {
          200: { description: 'Orders', ...json({ type: 'array', items: { type: 'object', properties: { order: ref('Order') } } }) },
          ...refusals(...BODY),
        },
      },
    },
    '/api/v1/orders/{UID}/status': {
      parameters: [uidParameter()],
      get: {
        summary: 'The order status as the competition sees it.',
        responses: { 200: { description: 'Status', ...json(ref('CompetitionOrderStatus')) }, ...refusals('InvalidOrderUid', 'OrderNotFound') },
      },
    },
    '/api/v1/account/{owner}/orders': {
      parameters: [pathParameter('owner', 'address'), ...queryParameters('orderbook/queries/page-query.schema.json')],
      get: {
        summary: "An owner's orders, newest first (limit default 10, 1 to 1000).",
        responses: { 200: { description: 'Orders', ...json(arrayOf('Order')) }, ...refusals(...QUERY, 'InvalidAddress', 'InvalidLimit') },
      },
    },
    '/api/v2/trades': {
      get: {
        summary: 'Trades, newest first, of exactly one owner or order (limit default 10, 1 to 1000).',
        parameters: queryParameters('orderbook/queries/trades-v2-query.schema.json'),
        responses: { 200: { description: 'Trades', ...json(arrayOf('Trade')) }, ...refusals(...QUERY, 'InvalidTradeFilter', 'InvalidLimit') },
      },
    },
    '/api/v1/transactions/{txHash}/orders': {
      parameters: [pathParameter('txHash', 'hash32')],
      get: {
        summary: 'The orders a settlement transaction traded.',
        responses: { 200: { description: 'Orders', ...json(arrayOf('Order')) }, ...refusals('InvalidTxHash') },
      },
    },
    '/api/v1/token/{token}/native_price': {
      parameters: [pathParameter('token', 'address')],
      get: {
        summary: 'Native token atoms per atom of the token.',
        responses: { 200: { description: 'Price', ...json(ref('NativePriceResponse')) }, ...refusals('InvalidAddress', 'NoLiquidity') },
      },
    },
    '/api/v1/users/{address}/total_surplus': {
      parameters: [pathParameter('address', 'address')],
      get: {
        summary: "The surplus of the user's newest 1000 trades over their limit prices, in native token atoms.",
        responses: { 200: { description: 'Surplus', ...json(ref('TotalSurplus')) }, ...refusals('InvalidAddress') },
      },
    },
    '/api/v1/auction': {
      get: {
        summary: 'The current batch for solvers; ETag and If-None-Match as solvable_orders.',
        responses: { 200: { description: 'Auction', ...json(ref('Auction')) }, 304: { description: 'Not modified' }, ...refusals() },
      },
    },
    '/api/v1/version': {
      get: { summary: "The service's version.", responses: { 200: { description: 'Version', content: { 'text/plain': {} } }, ...refusals() } },
    },
  };
}

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
          summary:
            'Orders: by default the currently valid ones; filters narrow, include flags widen. Oldest first, `limit` read a page (default and at most 1000); the next page is in the Link header.',
          parameters: queryParameters('orderbook/queries/orders-query.schema.json'),
          responses: {
            200: {
              description: 'Orders',
              headers: { Link: { description: 'The next page, when there may be one: `</api/v1/orders?…&cursor=…>; rel="next"` (RFC 8288).', schema: { type: 'string' } } },
              ...json(arrayOf('Order')),
            },
            ...refusals(...QUERY),
          },
        },
        post: {
          summary: "Create an order (the seed's OrderCreation, or today's: appData as the document, appDataHash, quoteId; unknown fields are ignored).",
          requestBody: { required: true, ...json(ref('OrderCreation')) },
          responses: {
            201: { description: 'The order UID', ...json(inlinedSchema('orderbook/primitives.schema.json#/$defs/orderUid')) },
            ...refusals(
              ...BODY,
              'MissingOrderData',
              'ZeroAmount',
              'SameBuyAndSellToken',
              'InsufficientValidTo',
              'ExcessiveValidTo',
              'SellAmountOverflow',
              'InvalidSignature',
              'InvalidEip1271Signature',
              'MissingFrom',
              'WrongOwner',
              'DuplicatedOrder',
              'InsufficientFee',
              'InsufficientBalance',
              'InsufficientAllowance',
              'InvalidAppData',
              'AppDataHashMismatch',
              'QuoteNotFound',
              'InvalidQuote',
            ),
          },
        },
        delete: {
          summary: 'Cancel up to 128 orders signed together (OrderCancellations(bytes[] orderUids)), all or nothing.',
          requestBody: { required: true, ...json(ref('OrderCancellations')) },
          responses: {
            200: { description: 'Cancelled', ...json({ const: 'Cancelled' }) },
            ...refusals(...BODY, 'MissingOrderData', 'InvalidSignature', 'OrderNotFound', 'CancellationWrongOwner', 'AlreadyCancelled', 'OrderFullyExecuted', 'OrderExpired', 'OnChainOrder'),
          },
        },
      },
      ...todaysPaths(),
      '/api/v1/orders/{UID}': {
        parameters: [uidParameter()],
        get: {
          summary: 'One order.',
          responses: { 200: { description: 'The order', ...json(ref('Order')) }, ...refusals('InvalidOrderUid', 'OrderNotFound') },
        },
        delete: {
          summary: 'Cancel an order with a signed OrderCancellation; the answer has an empty body.',
          requestBody: { required: true, ...json(ref('OrderCancellation')) },
          responses: {
            200: { description: 'Cancelled' },
            ...refusals(...BODY, 'MissingOrderData', 'InvalidOrderUid', 'InvalidSignature', 'OrderNotFound', 'CancellationWrongOwner', 'AlreadyCancelled', 'OrderFullyExecuted', 'OrderExpired', 'OnChainOrder'),
          },
        },
      },
      '/api/v1/orders/{UID}/events': {
        parameters: [uidParameter()],
        get: {
          summary: "The order's events, oldest first (for auditors).",
          responses: { 200: { description: 'Events', ...json(arrayOf('StoredEvent')) }, ...refusals('InvalidOrderUid', 'OrderNotFound') },
        },
      },
      '/api/v1/solvable_orders': {
        get: {
          summary: 'Orders solvers should solve now. Answers carry an ETag; If-None-Match gives 304 when unchanged.',
          responses: { 200: { description: 'Orders', ...json(arrayOf('Order')) }, 304: { description: 'Not modified' }, ...refusals() },
        },
      },
      '/api/v1/trades': {
        get: {
          summary: 'Trades, oldest first, paginated (limit default 100, at most 1000).',
          parameters: queryParameters('orderbook/queries/trades-query.schema.json'),
          responses: { 200: { description: 'Trades', ...json(arrayOf('Trade')) }, ...refusals(...QUERY) },
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
            ...refusals('InvalidOrderData', 'NotFound'),
          },
        },
      },
      '/api/v1/domain': {
        get: { summary: 'The EIP-712 domain orders are signed in.', responses: { 200: { description: 'Domain', ...json(ref('Domain')) }, ...refusals() } },
      },
      '/api/v1/events': {
        get: {
          summary: 'The global event log, a page at a time (for auditors).',
          parameters: queryParameters('orderbook/queries/events-query.schema.json'),
          responses: { 200: { description: 'Events', ...json(arrayOf('StoredEvent')) }, ...refusals(...QUERY) },
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
          responses: { 200: eventStream('StoredEvent items, one per event'), ...refusals(...QUERY) },
        },
      },
      '/api/v1/solver/stream': {
        get: {
          summary:
            "Server-Sent Events telling when a solver's view changes: first each view's current id, then one " +
            'event per change, named after the view, with data {view, id}; for solvable_orders the id is the ETag ' +
            'of GET /solvable_orders (to send as If-None-Match).',
          responses: { 200: eventStream('View changes'), ...refusals() },
        },
      },
      '/api/v1/projections': {
        get: {
          summary: 'Checkpoint and digest of every read model, to compare with `npm run replay`.',
          responses: { 200: { description: 'Status', ...json(ref('ProjectionsStatus')) }, ...refusals() },
        },
      },
      '/api/v1/projections/replay': {
        post: {
          summary:
            'Verify by replay: rebuilds every read model in memory from the log (on a worker thread) up to the ' +
            'position of the live ones and compares the digests. One replay runs at a time.',
          responses: {
            200: { description: 'The comparison', ...json(ref('ReplayVerification')) },
            ...refusals(),
          },
        },
      },
    },
    components: {
      schemas: Object.fromEntries(Object.entries(COMPONENTS).map(([name, file]) => [name, inlinedSchema(file)])),
      // What any path may be answered, named by errorType.
      responses: Object.fromEntries(ANY_PATH.map((code) => [errorTypeOf(code), errorAnswer([code])])),
    },
  };
  return document;
}
