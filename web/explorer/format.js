// How the explorer writes values: shortened addresses and hashes, token amounts, times.

/** 0x1234…abcd */
export function short(hex, keep = 6) {
  if (typeof hex !== 'string' || hex.length <= 2 + keep * 2) return hex ?? '';
  return `${hex.slice(0, 2 + keep)}…${hex.slice(-keep)}`;
}

/** A uint256 decimal string in units of 10^18 (the dev tokens' decimals), for reading, not for sums. */
export function amount(raw) {
  if (raw === undefined || raw === null) return '';
  const value = Number(BigInt(raw)) / 1e18;
  if (value === 0) return '0';
  if (value >= 1e6 || value < 1e-6) return value.toExponential(3);
  return value.toLocaleString('en-US', { maximumSignificantDigits: 6 });
}

/** buy per sell, as a plain number. */
export function ratio(numerator, denominator) {
  const d = Number(BigInt(denominator));
  return d === 0 ? Infinity : Number(BigInt(numerator)) / d;
}

export function price(value) {
  if (!Number.isFinite(value)) return '∞';
  return value.toPrecision(6);
}

export function time(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** The owner's address inside an order UID (bytes 32..51). */
export function ownerOfUid(uid) {
  return '0x' + uid.slice(66, 106);
}
