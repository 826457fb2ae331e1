/**
 * The access layer's Prometheus metrics, on the service's one registry: refusals by what refused them.
 * Their names predate the layer (they were the gateway's) and are kept for dashboards.
 */
import { Counter } from 'prom-client';
import { registry } from '../shared/metrics.js';

export const accessMetrics = {
  rateLimited: new Counter({
    name: 'ethgate_rate_limited_total',
    help: 'Requests refused with 429, by the limit that refused them (ip, key, or key-failures: too many refused keys or tokens from one address)',
    labelNames: ['scope'] as const,
    registers: [registry],
  }),
  unauthorized: new Counter({
    name: 'ethgate_unauthorized_total',
    help: 'Requests refused with 401: an API key missing or unknown, an operator token missing or wrong, an operator route asked from outside loopback',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
  misdirected: new Counter({
    name: 'ethgate_misdirected_total',
    help: 'Requests refused with 421 for a Host header outside ALLOWED_HOSTS',
    registers: [registry],
  }),
};
