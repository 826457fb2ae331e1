/**
 * A sorted list kept in segments of at most `maxSize` items, each segment remembering whether it changed
 * since it was last encoded: the solvable orders answer is the JSON of each segment, sent one after the
 * other, so that a change encodes again the one segment it falls in and leaves the others' bytes as they
 * were. A segment that grows past `maxSize` splits in two (the last one unevenly, see insert); one that shrinks under a quarter of it joins a
 * neighbour when both fit in one. Where segments begin depends on the list's history, not on its items
 * (which a client chooses), so no client can make the segments small and many.
 */
export class Segment<T, E> {
  /** The encoding of the items, made by the list's user; dropped whenever the items change. */
  encoded: E | undefined;

  constructor(public items: T[]) {}
}

export interface SegmentItem<T, E> {
  segment?: Segment<T, E>;
}

export class SegmentedList<T extends SegmentItem<T, E>, E> {
  /** The segments in list order, none empty. */
  readonly segments: Segment<T, E>[] = [];
  private count = 0;

  constructor(
    /** < 0 when a goes before b; no two items compare equal. */
    private readonly compare: (a: T, b: T) => number,
    private readonly maxSize = 256,
  ) {}

  get size(): number {
    return this.count;
  }

  /** The items in order. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (const segment of this.segments) yield* segment.items;
  }

  insert(item: T): void {
    const segments = this.segments;
    if (segments.length === 0) {
      const segment = new Segment<T, E>([item]);
      segments.push(segment);
      item.segment = segment;
      this.count++;
      return;
    }
    // The first segment whose last item goes after `item` (the last segment when none does): most items are
    // the newest and go at the end.
    let at = segments.length - 1;
    if (this.compare(segments[at].items.at(-1)!, item) > 0) {
      let low = 0;
      let high = at;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (this.compare(segments[mid].items.at(-1)!, item) < 0) low = mid + 1;
        else high = mid;
      }
      at = low;
    }
    const segment = segments[at];
    segment.items.splice(this.indexIn(segment, item), 0, item);
    segment.encoded = undefined;
    item.segment = segment;
    this.count++;
    if (segment.items.length > this.maxSize) {
      // Split in halves; the last segment, where the newest items go, leaves its newest eighth to a new last
      // segment, so that the segments behind it stay nearly full (fewer, larger pieces to send) and the one
      // every new item changes stays small (less to encode again).
      const last = at === segments.length - 1;
      const split = last ? segment.items.length - Math.max(1, segment.items.length >> 3) : segment.items.length >> 1;
      const second = new Segment<T, E>(segment.items.splice(split));
      for (const moved of second.items) moved.segment = second;
      segments.splice(at + 1, 0, second);
    }
  }

  remove(item: T): void {
    const segment = item.segment;
    if (!segment) return;
    const index = this.indexIn(segment, item);
    if (segment.items[index] !== item) throw new Error('segmented list: item not where its order puts it');
    segment.items.splice(index, 1);
    segment.encoded = undefined;
    item.segment = undefined;
    this.count--;
    if (segment.items.length === 0) {
      this.segments.splice(this.segments.indexOf(segment), 1);
      return;
    }
    if (segment.items.length >= this.maxSize >> 2) return;
    const at = this.segments.indexOf(segment);
    // Join the smaller neighbour, when both fit in one segment.
    const before = this.segments[at - 1];
    const after = this.segments[at + 1];
    const neighbour = before && (!after || before.items.length <= after.items.length) ? before : after;
    if (!neighbour || neighbour.items.length + segment.items.length > this.maxSize) return;
    const [first, second] = neighbour === before ? [before, segment] : [segment, after];
    for (const moved of second.items) moved.segment = first;
    first.items.push(...second.items);
    first.encoded = undefined;
    this.segments.splice(this.segments.indexOf(second), 1);
  }

  /** Marks the item's segment changed (the item's encoding changed). */
  touch(item: T): void {
    if (item.segment) item.segment.encoded = undefined;
  }

  /** Where `item` is or goes in `segment`: the index of the first item not before it. */
  private indexIn(segment: Segment<T, E>, item: T): number {
    const items = segment.items;
    let low = 0;
    let high = items.length;
    // Most items are the newest, or the segment's last.
    if (high > 0 && this.compare(items[high - 1], item) < 0) return high;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compare(items[mid], item) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
