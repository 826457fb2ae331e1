/**
 * What of the configuration is secret, for the logger to leave out (src/logger.ts): API keys, the
 * operator token, and of every configured URL (upstreams, DATABASE_URL, REDIS_URL, NATS_URL) its user and
 * password, its path segments and query values (where providers put keys), and host labels that look
 * like keys (long and random, as providers put them in subdomains). Pure.
 */
import type { Config } from '../generated/config.js';

/** A host label that is a key rather than a name: long, with digits among letters. */
const KEY_LIKE_LABEL = /^(?=.*\d)(?=.*[a-z])[a-z0-9_-]{16,}$/i;

/** The secret pieces of one URL (in the raw and the percent-decoded spelling). */
export function urlSecrets(raw: string): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const pieces: string[] = [];
  if (url.username) pieces.push(url.username);
  if (url.password) pieces.push(url.password);
  for (const segment of url.pathname.split('/')) if (segment.length >= 8) pieces.push(segment);
  for (const [name, value] of url.searchParams) {
    if (value.length >= 4) pieces.push(value);
    if (name.length >= 16) pieces.push(name);
  }
  const labels = url.hostname.split('.');
  for (const label of labels.slice(0, -2)) if (KEY_LIKE_LABEL.test(label)) pieces.push(label);
  return pieces.flatMap((piece) => {
    let decoded = piece;
    try {
      decoded = decodeURIComponent(piece);
    } catch {
      // kept as written
    }
    return decoded === piece ? [piece] : [piece, decoded];
  });
}

export function secretsOf(config: Config): string[] {
  const urls = [
    ...config.networks.flatMap((n) => n.upstreams.map((u) => u.url)),
    config.databaseUrl,
    config.redisUrl,
    config.orderbook.natsUrl,
  ].filter((u): u is string => u !== undefined);
  return [
    ...config.gateway.apiKeys.map((k) => k.key),
    ...(config.access.operatorToken === undefined ? [] : [config.access.operatorToken]),
    ...urls.flatMap(urlSecrets),
  ];
}
