/**
 * Reading settings from the environment, for every part's configuration slice: the variables are strings,
 * and a malformed one is a ConfigError naming the variable, raised before anything starts.
 */

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

/** The entries whose value is set: what the environment says, without the keys it leaves to the file. */
export function strip(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

export function integer(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

/** A decimal number such as 0.25. */
export function decimal(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(`${name} must be a non-negative number, got "${raw}"`);
  return Number(raw);
}

/** true/false, 1/0 or on/off. */
export function boolean(env: Env, name: string): boolean | undefined {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === '1' || raw === 'on') return true;
  if (raw === 'false' || raw === '0' || raw === 'off') return false;
  throw new ConfigError(`${name} must be on or off (true or false), got "${env[name]}"`);
}

export function list(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}
