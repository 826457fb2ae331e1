/**
 * The order book's error catalogue holds what it promises, without a service: every entry has a status and
 * a meaning, a client's mistake is never 5xx, every entry has a constructor and is raised somewhere in the
 * sources, the OpenAPI document declares every entry with the catalogue's status, and docs/orderbook-api.md
 * lists every status that differs from CoW's order book. (test/orderbook/api/error-answers.test.ts checks
 * the live answers against the document.)
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ORDERBOOK_ERRORS, OrderbookError, errorTypeOf, orderbookErrors, type OrderbookErrorCode } from '../../../src/orderbook/domain/errors.js';
import { ACCESS_REFUSALS, LISTENER_REFUSALS, answerOf, listenerRefusal, statusOf } from '../../../src/orderbook/api/errors.js';
import { AccessRefusal } from '../../../src/access/errors.js';
import { openApiDocument } from '../../../src/orderbook/api/openapi.js';
import { repoPath } from '../../../src/shared/paths.js';

const CODES = Object.keys(ORDERBOOK_ERRORS) as OrderbookErrorCode[];

/** Arguments for every constructor: a constructor added without an entry here does not compile. */
const SAMPLE_ARGS: { [K in keyof typeof orderbookErrors]: Parameters<(typeof orderbookErrors)[K]> } = {
  missingOrderData: ['order must have buyAmount'],
  invalidOrderData: ['bad'],
  invalidOrderUid: ['bad'],
  fromSchema: [[{ keyword: 'required', instancePath: '', schemaPath: '#/required', params: { missingProperty: 'x' } }], 'order'],
  zeroAmount: [],
  sameBuyAndSellToken: [],
  insufficientValidTo: [1],
  excessiveValidTo: [1, 'limit'],
  sellAmountOverflow: [],
  invalidSignature: ['bad'],
  invalidEip1271Signature: ['0x00'],
  missingFrom: ['presign'],
  wrongOwner: ['0x01', '0x02'],
  duplicatedOrder: [],
  insufficientFee: [1n, 2n],
  insufficientBalance: [2n, 1n],
  insufficientAllowance: [2n, 1n],
  orderNotFound: [],
  cancellationWrongOwner: [],
  alreadyCancelled: [],
  orderFullyExecuted: [],
  orderExpired: [],
  onChainOrder: [],
  invalidAppData: ['bad'],
  appDataInvalid: ['bad'],
  appDataHashMismatch: ['0x01', '0x02'],
  quoteNotFound: [1],
  invalidQuote: ['bad'],
  noLiquidity: ['0x01'],
  sellAmountDoesNotCoverFee: [1n],
  invalidLimit: ['bad'],
  invalidTradeFilter: ['bad'],
  invalidAddress: ['0x'],
  invalidTxHash: ['0x'],
  invalidAppDataHash: ['0x'],
  notFound: ['token'],
  off: [],
  methodNotAllowed: ['TRACE', 'GET'],
  payloadTooLarge: [16],
  tooManyRequests: ['slow down'],
  unavailable: ['starting'],
  unsettled: ['moving'],
  busy: ['busy'],
  internal: [],
};

function made(name: keyof typeof orderbookErrors): OrderbookError {
  return (orderbookErrors[name] as (...args: unknown[]) => OrderbookError)(...SAMPLE_ARGS[name]);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Operation {
  responses: Record<string, { content?: { 'application/json'?: { schema?: { allOf?: [unknown, { properties: { errorType: { enum: string[] } } }] } } } }>;
}

/** errorType → the statuses the document gives it, over every operation and the any-path answers. */
function declaredStatuses(): Map<string, Set<number>> {
  const doc = openApiDocument() as {
    paths: Record<string, Record<string, Operation | unknown[]>>;
    components: { responses: Record<string, Operation['responses'][string]> };
  };
  const declared = new Map<string, Set<number>>();
  const add = (status: number, answer: Operation['responses'][string]) => {
    for (const errorType of answer.content?.['application/json']?.schema?.allOf?.[1].properties.errorType.enum ?? []) {
      declared.set(errorType, new Set([...(declared.get(errorType) ?? []), status]));
    }
  };
  for (const item of Object.values(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue;
      for (const [status, answer] of Object.entries((operation as Operation).responses)) add(Number(status), answer);
    }
  }
  for (const [errorType, answer] of Object.entries(doc.components.responses)) {
    add(ORDERBOOK_ERRORS[errorType as OrderbookErrorCode].status, answer);
  }
  return declared;
}

describe('the order book error catalogue', () => {
  it('gives every entry a status and a meaning; 5xx only for its own fault and for a moment to retry', () => {
    for (const code of CODES) {
      const { status, message } = ORDERBOOK_ERRORS[code];
      assert.ok(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: ${status}`);
      assert.ok(message.length > 0, code);
    }
    assert.deepEqual(CODES.filter((c) => ORDERBOOK_ERRORS[c].status >= 500).sort(), ['InternalServerError', 'ServiceUnavailable']);
  });

  it('makes every entry with a constructor, answered with its status and errorType', () => {
    const names = Object.keys(orderbookErrors) as (keyof typeof orderbookErrors)[];
    const codes = new Set<OrderbookErrorCode>();
    for (const name of names) {
      const err = made(name);
      assert.ok(err instanceof OrderbookError, name);
      codes.add(err.code);
      assert.equal(statusOf(err), ORDERBOOK_ERRORS[err.code].status, name);
      assert.deepEqual(answerOf(err), { status: ORDERBOOK_ERRORS[err.code].status, body: { errorType: errorTypeOf(err.code), description: err.description } });
    }
    // What the listeners and the access layer refuse before the order book sees a request is made by kind.
    assert.deepEqual(CODES.filter((c) => !codes.has(c)), ['Unauthorized', 'MisdirectedRequest', 'MalformedRequest', 'RequestTimeout', 'HeadersTooLarge']);
    // One errorType, two statuses: CoW's WrongOwner is 400 on an order, 401 on a cancellation.
    assert.deepEqual([made('wrongOwner').errorType, statusOf(made('wrongOwner'))], ['WrongOwner', 400]);
    assert.deepEqual([made('cancellationWrongOwner').errorType, statusOf(made('cancellationWrongOwner'))], ['WrongOwner', 401]);
  });

  it("answers the listeners' and the access layer's refusals in the order book's shape, at the catalogue's status", () => {
    const listener = (['malformedRequest', 'requestTimeout', 'headersTooLarge', 'noWebSocketEndpoint'] as const).map((kind) => answerOf(listenerRefusal(kind, 'why')));
    assert.deepEqual(
      listener.map((a) => [a.status, a.body.errorType]),
      [[400, 'MalformedRequest'], [408, 'RequestTimeout'], [431, 'HeadersTooLarge'], [404, 'NotFound']],
    );
    const access = (['unauthorized', 'misdirected', 'rateLimited'] as const).map((kind) => answerOf(new AccessRefusal(kind, 'refused')));
    assert.deepEqual(
      access.map((a) => [a.status, a.body.errorType]),
      [[401, 'Unauthorized'], [421, 'MisdirectedRequest'], [429, 'TooManyRequests']],
    );
  });

  it('raises every entry somewhere in the sources (the constructors, and the listener refusals)', () => {
    const text = sources(repoPath('src', 'orderbook'))
      .filter((path) => !path.endsWith(join('domain', 'errors.ts')))
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n')
      .concat(readFileSync(repoPath('src', 'wiring', 'service.ts'), 'utf8'));
    const raised = new Set<OrderbookErrorCode>([...Object.values(LISTENER_REFUSALS), ...Object.values(ACCESS_REFUSALS)]);
    for (const name of Object.keys(orderbookErrors) as (keyof typeof orderbookErrors)[]) {
      // fromSchema makes MissingOrderData and InvalidOrderData; both are raised by name elsewhere too.
      if (new RegExp(`orderbookErrors\\.${name}\\b`).test(text)) raised.add(made(name).code);
    }
    assert.deepEqual(CODES.filter((code) => !raised.has(code)), []);
  });

  it('is what the OpenAPI document declares: every entry, at its status', () => {
    const declared = declaredStatuses();
    for (const code of CODES) {
      const statuses = declared.get(errorTypeOf(code));
      assert.ok(statuses, `${code} is declared by some operation`);
      assert.ok(statuses.has(ORDERBOOK_ERRORS[code].status), `${code} at ${ORDERBOOK_ERRORS[code].status}, declared ${[...statuses]}`);
    }
    const known = new Set(CODES.map(errorTypeOf));
    for (const [errorType, statuses] of declared) {
      assert.ok(known.has(errorType as never), errorType);
      const catalogued = new Set<number>(CODES.filter((c) => errorTypeOf(c) === errorType).map((c) => ORDERBOOK_ERRORS[c].status));
      for (const status of statuses) assert.ok(catalogued.has(status), `${errorType} declared at ${status}`);
    }
  });

  it('lists every status that differs from the reference in docs/orderbook-api.md, and only those', () => {
    const doc = readFileSync(repoPath('docs', 'orderbook-api.md'), 'utf8');
    const section = doc.split('## Divergences from the reference')[1]?.split('\n## ')[0];
    assert.ok(section, 'the section exists');
    const rows = new Map<string, { here: string; reference: string }>();
    for (const match of section.matchAll(/^\| `(\w+)` \| (\d{3}) \| (\d{3}|none) \|/gm)) {
      assert.ok(!rows.has(match[1]), `${match[1]} listed once`);
      rows.set(match[1], { here: match[2], reference: match[3] });
    }
    const expected = new Map<string, { here: string; reference: string }>();
    for (const code of CODES) {
      const { status, reference } = ORDERBOOK_ERRORS[code];
      if (reference !== status) expected.set(errorTypeOf(code), { here: String(status), reference: reference === null ? 'none' : String(reference) });
    }
    assert.deepEqual(Object.fromEntries([...rows].sort()), Object.fromEntries([...expected].sort()));
  });
});
