/**
 * A read model's fingerprint for auditors: SHA-256 over its documents in key order, each as RFC 8785
 * canonical JSON, so that the live read model and one rebuilt from position 0 (npm run replay) can be
 * compared whatever engine holds them.
 */
import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// The package is CommonJS with an ESM-style default export in its typings.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;
import type { ReadModelStore } from './types.js';

export interface Digest {
  /** The checkpoint the documents were read at. */
  position: number;
  documents: number;
  sha256: string;
}

export async function digestReadModel(store: ReadModelStore, name: string): Promise<Digest> {
  const hash = createHash('sha256');
  let documents = 0;
  const position = await store.snapshot(name, (key, docJson) => {
    hash.update(key).update('\t').update(canonicalize(JSON.parse(docJson)) ?? 'null').update('\n');
    documents++;
  });
  return { position, documents, sha256: hash.digest('hex') };
}
