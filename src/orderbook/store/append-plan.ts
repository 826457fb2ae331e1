/**
 * The pure part of appending, shared by both stores: checking an append and encoding its data up front,
 * then deciding a whole batch (version checks, stream versions, global positions) from the streams'
 * current versions and the log's head, which the store reads inside its write transaction. A batch is made
 * of groups: an append to one stream is a group of one part, an append to several streams (appendStreams)
 * a group of several, written all or nothing.
 */
import {
  ConcurrencyError,
  InvalidAppendError,
  type AppendResult,
  type ExpectedVersion,
  type NewEvent,
  type StreamAppend,
} from './types.js';

export interface EncodedEvent {
  type: string;
  schemaVersion: number;
  /** The event's data as JSON text. */
  json: string;
}

/** One stream's part of an append that passed its checks, waiting for its batch. */
export interface PreparedAppend {
  streamId: string;
  expected: ExpectedVersion;
  events: EncodedEvent[];
}

/** One row of the events table, as both stores write it. */
export interface EventRow extends EncodedEvent {
  position: number;
  streamId: string;
  streamVersion: number;
  recordedAt: string;
}

/** The parts of one append, written together or not at all: one per stream, no stream twice. */
export type PreparedGroup = readonly PreparedAppend[];

/** What became of one group of a batch: written (a result per part), or refused because a stream had moved on. */
export type AppendOutcome = AppendResult[] | ConcurrencyError;

export interface BatchPlan {
  outcomes: AppendOutcome[];
  /** Rows to insert, in position order. */
  rows: EventRow[];
  /** The log's head once the rows are written. */
  head: number;
}

// JSON.stringify writes a NUL character as \u0000 and an unpaired surrogate as \udXXX (a valid pair is
// written as is), so such an escape preceded by an even number of backslashes is one of those characters.
// PostgreSQL's jsonb cannot hold either; SQLite could, but both stores keep the same contract, and a
// batch must not fail as a whole because of one append's data.
const UNSTORABLE_TEXT = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

export function encodeData(data: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch (err) {
    throw new InvalidAppendError(`event data is not JSON: ${(err as Error).message}`);
  }
  if (json === undefined) throw new InvalidAppendError('event data is not JSON: undefined');
  if (UNSTORABLE_TEXT.test(json)) {
    throw new InvalidAppendError('event data contains a NUL character or an unpaired surrogate');
  }
  return json;
}

function isVersion(n: unknown): n is number {
  return Number.isSafeInteger(n) && (n as number) >= 0;
}

/** Checks an append's arguments and encodes its events; throws InvalidAppendError. */
export function prepareAppend(streamId: string, events: NewEvent[], expected: ExpectedVersion): PreparedAppend {
  // PostgreSQL text cannot hold NUL, and one append must not make its whole batch fail.
  if (typeof streamId !== 'string' || streamId === '' || streamId.includes('\0')) {
    throw new InvalidAppendError('stream id must be a non-empty string without NUL characters');
  }
  if (expected !== 'any' && expected !== 'no_stream' && !isVersion(expected)) {
    throw new InvalidAppendError(`expected version must be 'any', 'no_stream' or an integer >= 0, got ${String(expected)}`);
  }
  if (!Array.isArray(events) || events.length === 0) throw new InvalidAppendError('an append needs at least one event');
  const encoded = events.map((event): EncodedEvent => {
    if (typeof event?.type !== 'string' || event.type === '' || event.type.includes('\0')) {
      throw new InvalidAppendError('event type must be a non-empty string without NUL characters');
    }
    if (!Number.isSafeInteger(event.schemaVersion) || event.schemaVersion < 1) {
      throw new InvalidAppendError(`schema version of ${event.type} must be an integer >= 1`);
    }
    return { type: event.type, schemaVersion: event.schemaVersion, json: encodeData(event.data) };
  });
  return { streamId, expected, events: encoded };
}

/** Checks an append to several streams (see prepareAppend; no stream twice, at least one part). */
export function prepareGroup(appends: readonly StreamAppend[]): PreparedGroup {
  if (!Array.isArray(appends) || appends.length === 0) throw new InvalidAppendError('an append needs at least one stream');
  const seen = new Set<string>();
  return appends.map(({ streamId, events, expected }) => {
    const part = prepareAppend(streamId, events, expected);
    if (seen.has(streamId)) throw new InvalidAppendError(`stream ${streamId} appears twice in one append`);
    seen.add(streamId);
    return part;
  });
}

export function versionMatches(expected: ExpectedVersion, actual: number): boolean {
  if (expected === 'any') return true;
  return actual === (expected === 'no_stream' ? 0 : expected);
}

/**
 * Decides a batch in queue order: each group is checked against its streams' versions as left by the
 * groups before it (in the database, `versions`, or earlier in the same batch; a stream absent from
 * `versions` has no events), and an accepted group's events take the next positions after `head`, part by
 * part. A group with any stream not at its expected version writes nothing and does not affect the others.
 */
export function planBatch(
  batch: readonly PreparedGroup[],
  versions: ReadonlyMap<string, number>,
  head: number,
  recordedAt: string,
): BatchPlan {
  const current = new Map(versions);
  const outcomes: AppendOutcome[] = [];
  const rows: EventRow[] = [];
  let position = head;
  for (const group of batch) {
    const stale = group.find(({ streamId, expected }) => !versionMatches(expected, current.get(streamId) ?? 0));
    if (stale) {
      outcomes.push(new ConcurrencyError(stale.streamId, stale.expected, current.get(stale.streamId) ?? 0));
      continue;
    }
    const results: AppendResult[] = [];
    for (const { streamId, events } of group) {
      let version = current.get(streamId) ?? 0;
      for (const { type, schemaVersion, json } of events) {
        // Not `{ ...event, position, ... }`: on Node 20 a spread followed by properties takes V8's slow path.
        rows.push({ type, schemaVersion, json, position: ++position, streamId, streamVersion: ++version, recordedAt });
      }
      current.set(streamId, version);
      results.push({ streamVersion: version, position });
    }
    outcomes.push(results);
  }
  return { outcomes, rows, head: position };
}
