/** Checks readAll's arguments the same way for every store: both are positions or counts. */
export function checkReadAll(after: number, limit: number): void {
  if (!Number.isSafeInteger(after) || after < 0) throw new RangeError(`after must be an integer >= 0, got ${after}`);
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`limit must be an integer >= 0, got ${limit}`);
}
