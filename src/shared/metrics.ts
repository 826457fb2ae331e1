/**
 * The one Prometheus registry, served at /metrics. Modules register their own metrics on it; the process's
 * own (CPU, memory, event loop, file descriptors) are added when the service starts, not at import.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();

let collecting = false;

/** Adds Node's process metrics to the registry (once; the service calls it at start). */
export function collectProcessMetrics(): void {
  if (collecting) return;
  collectDefaultMetrics({ register: registry });
  collecting = true;
}
