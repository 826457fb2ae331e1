/**
 * A read model's fingerprint for auditors, comparable whatever engine holds it: SHA-256 over one line per
 * document in key order (bytewise), `key TAB sha256(document) LF`, where a document's hash is that of its
 * RFC 8785 canonical JSON. Hashing documents one by one lets a replay split over several workers merge
 * their (key, hash) lists into the same digest the live read model gives.
 */
import { createHash, hash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';
import type { ReadModelStore } from './models/types.js';

let canonical: ReturnType<typeof configure> | undefined;

/**
 * Keys sorted by UTF-16 code units, numbers and strings as JSON.stringify writes them: RFC 8785's canonical
 * form for any JSON value (test/orderbook/read/digest.test.ts holds it to canonicalize, by one of the RFC's
 * authors, which takes twice as long). strict: a value JSON cannot hold fails instead of being dropped.
 */
function canonicalJson(value: unknown): string | undefined {
  canonical ??= configure({ deterministic: true, strict: true });
  return canonical(value);
}

export interface Digest {
  /** The checkpoint the documents were read at. */
  position: number;
  documents: number;
  sha256: string;
}

export function documentHash(doc: unknown): string {
  return hash('sha256', canonicalJson(doc) ?? 'null', 'hex');
}

/** Feeds (key, document hash) pairs, in key order, into a read model's digest. */
export class DigestBuilder {
  private readonly hash = createHash('sha256');
  private documents = 0;

  add(key: string, docHash: string): void {
    this.hash.update(`${key}\t${docHash}\n`);
    this.documents++;
  }

  finish(position: number): Digest {
    return { position, documents: this.documents, sha256: this.hash.digest('hex') };
  }
}

export async function digestReadModel(store: ReadModelStore, name: string): Promise<Digest> {
  const builder = new DigestBuilder();
  const position = await store.snapshot(name, (key, doc) => builder.add(key, documentHash(doc)));
  return builder.finish(position);
}
