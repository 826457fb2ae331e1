// How the explorer writes values: shortened addresses and hashes, token amounts, times.

/** 0x1234…abcd */
export function short(hex, keep = 6) {
  if (typeof hex !== 'string' || hex.length <= 2 + keep * 2) return hex ?? '';
  return `${hex.slice(0, 2 + keep)}…${hex.slice(-keep)}`;
}

/**
 * A uint256 decimal string of token atoms in the token's units (`decimals`), exact digits cut (not rounded)
 * to 6 after the point, or to 6 significant ones below 1: 10500000 with 6 decimals is "10.5".
 */
export function amount(raw, decimals) {
  if (raw === undefined || raw === null) return '';
  const value = BigInt(raw);
  const scale = 10n ** BigInt(decimals);
  const whole = (value / scale).toLocaleString('en-US');
  let fraction = (value % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  if (value >= scale) fraction = fraction.slice(0, 6);
  else fraction = fraction.slice(0, fraction.match(/^0*/)[0].length + 6);
  fraction = fraction.replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** A token amount in atoms as a plain number of token units, for charts (not for sums). */
export function units(raw, decimals) {
  return Number(BigInt(raw)) / 10 ** decimals;
}

/**
 * numerator / denominator as a plain number; with decimals, a price in token units: numerator atoms of a
 * token with `numeratorDecimals` per denominator atoms of one with `denominatorDecimals`.
 */
export function ratio(numerator, denominator, numeratorDecimals = 0, denominatorDecimals = 0) {
  const d = Number(BigInt(denominator));
  return d === 0 ? Infinity : (Number(BigInt(numerator)) / d) * 10 ** (denominatorDecimals - numeratorDecimals);
}

/** A price to 6 significant digits ("2", "0.5", "1,234.57"), very large or small ones in exponent form. */
export function price(value) {
  if (!Number.isFinite(value)) return '∞';
  if (value !== 0 && (Math.abs(value) >= 1e12 || Math.abs(value) < 1e-6)) return value.toExponential(4);
  return value.toLocaleString('en-US', { maximumSignificantDigits: 6 });
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
