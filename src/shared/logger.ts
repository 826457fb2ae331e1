import { pino, type Logger } from 'pino';

/**
 * The one logger of the service: structured JSON lines on stdout.
 * LOG_LEVEL is read here rather than from the config so that config loading itself can log.
 *
 * No line may carry a credential: the configured secrets (API keys, the operator token, passwords and
 * the secret parts of upstream, database, Redis and NATS URLs; see src/access/secrets.ts) are replaced by
 * "[redacted]" in every line as it is written, whichever module logged them (an error message quoting a
 * URL included).
 */
let secrets: string[] = [];

/** From now on, `values` never appear in a log line (the longest first, so that none is left in part). */
export function redactInLogs(values: Iterable<string>): void {
  secrets = [...new Set([...secrets, ...values])].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length);
}

function scrub(line: string): string {
  for (const secret of secrets) if (line.includes(secret)) line = line.split(secret).join('[redacted]');
  return line;
}

export const logger: Logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  base: { service: 'ethgate' },
  timestamp: pino.stdTimeFunctions.isoTime,
  hooks: { streamWrite: (line) => (secrets.length === 0 ? line : scrub(line)) },
});

export type { Logger };
