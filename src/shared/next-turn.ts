/**
 * The gateway and the order book share one event loop: work that grows with its input (a page of a
 * thousand orders, a long answer to encode) is done a piece at a time, and gives the loop a turn between
 * pieces so that every other client's I/O is served meanwhile. setImmediate runs after the I/O the loop
 * has waiting, where a resolved promise would not.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Reads up to `limit` items, at most `perTurn` at a time with a turn of the event loop between reads.
 * `readNext(n)` reads (and keeps) the next n items at most and answers how many it read; fewer than n means
 * there are no more. Answers how many were read in all.
 */
export async function readInTurns(limit: number, perTurn: number, readNext: (n: number) => Promise<number>): Promise<number> {
  let read = 0;
  while (read < limit) {
    if (read > 0) await nextTurn();
    const wanted = Math.min(perTurn, limit - read);
    const got = await readNext(wanted);
    read += got;
    if (got < wanted) break;
  }
  return read;
}
