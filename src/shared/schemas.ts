/**
 * The one Ajv instance: every JSON Schema under schemas/ is loaded by its $id on the first use of any of
 * them (nothing is read at import), and validators are compiled on first use. Callers name a schema by its
 * path under schemas/ plus an optional JSON pointer.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { repoPath } from './paths.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const BASE_ID = 'https://ethgate.dev/schemas/';

let loaded: Ajv2020 | undefined;

/** The Ajv instance holding every schema under schemas/, made on first use. */
function schemas(): Ajv2020 {
  if (loaded) return loaded;
  // strictTuples is off because JSON-RPC params are tuples with optional trailing items (eth_call's block
  // and overrides): prefixItems + maxItems + items:false says exactly that, which strict tuple mode refuses.
  const ajv = new Ajv2020({ allErrors: false, verbose: true, strict: true, strictTuples: false, allowUnionTypes: true });
  addFormats(ajv);
  const load = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) load(path);
      else if (entry.name.endsWith('.json')) ajv.addSchema(JSON.parse(readFileSync(path, 'utf8')));
    }
  };
  load(repoPath('schemas'));
  return (loaded = ajv);
}

const compiled = new Map<string, ValidateFunction>();

function compiledValidator(ref: string): ValidateFunction {
  let fn = compiled.get(ref);
  if (!fn) {
    fn = schemas().getSchema(BASE_ID + ref);
    if (!fn) throw new Error(`no schema ${ref} under schemas/`);
    compiled.set(ref, fn);
  }
  return fn;
}

/** A schema's check: true when `data` is valid; otherwise `errors` says why (Ajv's errors). */
export interface Validator<T> {
  (data: unknown): data is T;
  errors?: ErrorObject[] | null;
}

/**
 * `validator('jsonrpc/request.schema.json')` or `validator('jsonrpc/method-params.schema.json#/$defs/eth_call')`.
 * Modules keep their validators as constants: the schema is found and compiled at the first check, not here.
 */
export function validator<T = unknown>(ref: string): Validator<T> {
  let fn: ValidateFunction | undefined;
  const check = ((data: unknown): boolean => {
    fn ??= compiledValidator(ref);
    const valid = fn(data);
    check.errors = fn.errors;
    return valid;
  }) as Validator<T>;
  return check;
}

/** Whether schemas/<file> defines `#/$defs/<name>` (used to find per-method params schemas). */
export function hasDefinition(file: string, name: string): boolean {
  return definitionNames(file).has(name);
}

/** The names under $defs of each schema file, listed once (asked per request by the params check). */
const definitions = new Map<string, Set<string>>();

function definitionNames(file: string): Set<string> {
  let names = definitions.get(file);
  if (!names) {
    const schema = schemas().getSchema(BASE_ID + file)?.schema as { $defs?: Record<string, unknown> } | undefined;
    names = new Set(schema?.$defs ? Object.keys(schema.$defs) : []);
    definitions.set(file, names);
  }
  return names;
}

/**
 * One readable line for a failed validation, e.g. `params[0] must be a 20-byte address (0x + 40 hex
 * digits)`. Ajv stops at the first failing keyword and lists it last, after the errors of the branches an
 * anyOf tried: so the last error names the whole expectation ("a block number, a block tag, or ..."), not
 * just its first branch. The schema's `title` says what was expected; Ajv's own message is the fallback.
 */
export function describeError(errors: ErrorObject[] | null | undefined, root: string): string {
  const error = errors?.at(-1);
  if (!error) return `${root} is invalid`;
  const where = root + error.instancePath.replace(/\/(\d+)/g, '[$1]').replace(/\/([^/]+)/g, '.$1');
  const parent = error.parentSchema as { title?: string } | undefined;
  switch (error.keyword) {
    case 'required':
      return `${where} must have ${(error.params as { missingProperty: string }).missingProperty}`;
    case 'additionalProperties':
      return `${where} has an unknown field ${(error.params as { additionalProperty: string }).additionalProperty}`;
    case 'minItems':
    case 'maxItems':
      return `${where} ${error.message} (got ${(error.data as unknown[]).length})`;
    case 'const':
      return `${where} must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`;
    case 'false schema':
      return `${where} is not expected`;
    default:
      return parent?.title ? `${where} must be ${parent.title}` : `${where} ${error.message}`;
  }
}


/**
 * A schema (or a part of one, by JSON pointer) with every $ref replaced by what it points to: for
 * documents that must stand alone, such as the OpenAPI document.
 */
export function inlinedSchema(ref: string): Record<string, unknown> {
  const resolve = (node: unknown, base: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => resolve(item, base));
    if (typeof node !== 'object' || node === null) return node;
    const object = node as Record<string, unknown>;
    if (typeof object.$ref === 'string') {
      const target = new URL(object.$ref, base).href;
      const schema = schemas().getSchema(target)?.schema;
      if (schema === undefined) throw new Error(`unresolvable $ref ${target}`);
      const { $ref: _ref, ...siblings } = object;
      return { ...(resolve(schema, target) as object), ...(resolve(siblings, base) as object) };
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(object)) {
      if (key === '$id' || key === '$schema' || key === '$defs') continue;
      out[key] = resolve(value, base);
    }
    return out;
  };
  const url = BASE_ID + ref;
  const schema = schemas().getSchema(url)?.schema;
  if (schema === undefined) throw new Error(`no schema ${ref} under schemas/`);
  return resolve(schema, url) as Record<string, unknown>;
}
