/**
 * The order book's configuration slice: its defaults, the environment variables it reads, and the facts
 * about the chain that are the order book's own. The one loader (src/wiring/config.ts) composes the slices.
 */

/** The canonical GPv2Settlement deployment, used when the order book network has an external upstream. */
export const CANONICAL_SETTLEMENT = '0x9008D19f58AAbD9eD0D60971565AA8510560ab41';
