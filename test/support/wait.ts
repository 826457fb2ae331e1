/**
 * The deadline a functional test waits for something that happens asynchronously: long enough only to end
 * a hang, never a claim about speed (how soon things happen is measured by `npm run bench`).
 */
export const HANG_GUARD_MS = 15_000;

/** Polling for a condition that becomes true asynchronously (a restart, a subscription ending...). */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
