/**
 * What is in flight, by key, for tables that take and drop an entry per request (calls being coalesced,
 * calls awaiting a WebSocket answer). Not a Map or a Set: one that lives long enough to reach V8's old generation and takes
 * and drops entries all the time replaces its hash table every few dozen entries, allocates the new tables
 * in the old generation, and links each replaced table to the next. The replaced tables then keep what
 * they held (and all it refers to: promises, requests, bodies) alive through every young-generation
 * collection until the next full one, so nearly every request gets copied to the old generation. A
 * prototype-less object used as a dictionary drops entries in place. bench/gateway-micro.ts prints the
 * bytes promoted per request, the figure this keeps low.
 */
export class InFlight<V> {
  private readonly entries: Record<string, V> = Object.create(null) as Record<string, V>;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: string | number): V | undefined {
    return this.entries[key];
  }

  /** Adds or replaces the entry of `key`. */
  set(key: string | number, value: V): void {
    if (!(key in this.entries)) this.count++;
    this.entries[key] = value;
  }

  /** Removes the entry of `key`; false when there was none. */
  delete(key: string | number): boolean {
    if (!(key in this.entries)) return false;
    delete this.entries[key];
    this.count--;
    return true;
  }

  clear(): void {
    for (const key in this.entries) delete this.entries[key];
    this.count = 0;
  }

  /** The entries' values, in no particular order. */
  values(): V[] {
    return Object.values(this.entries);
  }
}
