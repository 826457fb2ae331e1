/**
 * The gateway and the order book share one event loop: work that grows with its input (a page of a
 * thousand orders, a long answer to encode) is done a piece at a time, and gives the loop a turn between
 * pieces so that every other client's I/O is served meanwhile. setImmediate runs after the I/O the loop
 * has waiting, where a resolved promise would not.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
