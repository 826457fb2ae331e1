/**
 * crc32Combine(crc(A), crc(B), |B|) = crc(A ‖ B), without reading A or B: what zlib's crc32_combine does
 * (which Node does not expose), by multiplying crc(A) by x^(8·|B|) modulo the CRC-32 polynomial. It lets a
 * gzip member made of many pieces (gzip-pieces.ts) state the CRC of the whole text from the pieces' CRCs.
 * Arithmetic in GF(2) on the reflected polynomial, as zlib 1.2.12's multmodp and x2nmodp.
 */
const POLY = 0xedb88320;

/** a × b modulo the polynomial (both reflected, x^0 in the top bit). */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0..31. */
const X2N: number[] = (() => {
  const table: number[] = [];
  let p = 0x40000000; // x^1
  table.push(p);
  for (let n = 1; n < 32; n++) table.push((p = multiplyModP(p, p)));
  return table;
})();

/** x^(n · 2^k) modulo the polynomial. */
function xPowerModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  while (n > 0) {
    if (n % 2 === 1) p = multiplyModP(X2N[k & 31], p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The CRC-32 of A followed by B, from crc(A), crc(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multiplyModP(xPowerModP(lengthB, 3), crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}
