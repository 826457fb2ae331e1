/** The one Prometheus registry, served at /metrics. Modules register their own metrics on it. */
import { Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });
