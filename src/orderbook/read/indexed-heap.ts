/**
 * A binary min-heap whose items know their place in it, so that any item can be removed in O(log n): the
 * solvable orders view keeps its open orders by validTo in one, to find the next to expire without looking
 * at the others, and drops an order from it the moment the order stops being open.
 */
export interface HeapItem {
  heapIndex?: number;
}

export class IndexedHeap<T extends HeapItem> {
  private readonly items: T[] = [];

  constructor(private readonly key: (item: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    item.heapIndex = this.items.length;
    this.items.push(item);
    this.up(item.heapIndex);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top) this.remove(top);
    return top;
  }

  /** Removes `item` if it is in the heap. */
  remove(item: T): void {
    const index = item.heapIndex;
    if (index === undefined || this.items[index] !== item) return;
    item.heapIndex = undefined;
    const last = this.items.pop()!;
    if (index === this.items.length) return;
    this.items[index] = last;
    last.heapIndex = index;
    this.down(index);
    this.up(last.heapIndex);
  }

  private up(index: number): void {
    const items = this.items;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.key(items[parent]) <= this.key(items[index])) return;
      this.swap(index, parent);
      index = parent;
    }
  }

  private down(index: number): void {
    const items = this.items;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let least = index;
      if (left < items.length && this.key(items[left]) < this.key(items[least])) least = left;
      if (right < items.length && this.key(items[right]) < this.key(items[least])) least = right;
      if (least === index) return;
      this.swap(index, least);
      index = least;
    }
  }

  private swap(a: number, b: number): void {
    const items = this.items;
    [items[a], items[b]] = [items[b], items[a]];
    items[a].heapIndex = a;
    items[b].heapIndex = b;
  }
}
