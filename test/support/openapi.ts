/**
 * The order book's OpenAPI document as a contract on its error answers: every `{errorType, description}`
 * answer a test sees under /api/ must be one the document declares for that operation (or for any path),
 * at that status. test/support/http.ts checks each answer it reads, so every test that meets an order book
 * refusal checks that the document's per-operation lists cover what the endpoint actually gives.
 */
import { openApiDocument } from '../../src/orderbook/api/openapi.js';
import { ORDERBOOK_ERRORS, errorTypeOf, type OrderbookErrorCode } from '../../src/orderbook/domain/errors.js';

interface ErrorAnswer {
  content?: { 'application/json'?: { schema?: { allOf?: [unknown, { properties: { errorType: { enum: string[] } } }] } } };
}

interface Document {
  paths: Record<string, Record<string, { responses: Record<string, ErrorAnswer> } | unknown[]>>;
  components: { responses: Record<string, ErrorAnswer> };
}

const enumOf = (answer: ErrorAnswer | undefined): string[] => answer?.content?.['application/json']?.schema?.allOf?.[1].properties.errorType.enum ?? [];

let routes: { template: string; pattern: RegExp; params: number }[] | undefined;

/**
 * The document's path template a request falls under: of those its path matches that have its method,
 * the one with literal segments before parameters (POST by_uids before {UID}; GET by_uids is GET {UID}).
 */
function templateOf(doc: Document, method: string, path: string): string | undefined {
  routes ??= Object.keys(doc.paths)
    .map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      params: (template.match(/\{/g) ?? []).length,
    }))
    .sort((a, b) => a.params - b.params);
  return routes.find((r) => r.pattern.test(path) && doc.paths[r.template][method] !== undefined)?.template;
}

/**
 * Why the document does not declare this answer, or undefined when it does: the operation's errorTypes at
 * `status`, or those any path may give (a route or method none has, an unreadable request, the order book
 * not running).
 */
export function undeclaredError(method: string, url: string, status: number, errorType: string): string | undefined {
  const doc = openApiDocument() as Document;
  const path = new URL(url).pathname;
  const anyPath = doc.components.responses[errorType];
  const catalogued = (Object.keys(ORDERBOOK_ERRORS) as OrderbookErrorCode[]).filter((code) => errorTypeOf(code) === errorType);
  if (anyPath && catalogued.some((code) => ORDERBOOK_ERRORS[code].status === status)) return undefined;
  const template = templateOf(doc, method.toLowerCase(), path);
  const operation = template ? (doc.paths[template][method.toLowerCase()] as { responses: Record<string, ErrorAnswer> }) : undefined;
  if (!operation) return `${method} ${path} is no operation of the document, and ${errorType} is not answered on any path`;
  if (enumOf(operation.responses[status]).includes(errorType)) return undefined;
  return `${method} ${template} does not declare ${status} ${errorType} (declared: ${Object.entries(operation.responses)
    .flatMap(([s, answer]) => enumOf(answer).map((t) => `${s} ${t}`))
    .join(', ')})`;
}
