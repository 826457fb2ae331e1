import { pino, type Logger } from 'pino';

/**
 * The one logger of the service: structured JSON lines on stdout.
 * LOG_LEVEL is read here rather than from the config so that config loading itself can log.
 */
export const logger: Logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  base: { service: 'ethgate' },
  timestamp: pino.stdTimeFunctions.isoTime,
});

export type { Logger };
