/**
 * Every read model of the order book, in the order the runner catches them up: `orders` (one document per
 * order, its state with the derived part; the solvable orders view follows it) and `trades`.
 */
import type { Projection } from '../models/types.js';
import { ordersProjection } from './orders.js';
import { tradesProjection } from './trades.js';

export const projections: Projection<any>[] = [ordersProjection, tradesProjection];
