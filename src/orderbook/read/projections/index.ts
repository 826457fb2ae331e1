/** Every read model of the order book, in the order the runner catches them up. */
import type { Projection } from '../models/types.js';
import { ordersProjection } from './orders.js';
import { solvableOrdersProjection } from './solvable-orders.js';
import { tradesProjection } from './trades.js';

export const projections: Projection<any>[] = [ordersProjection, solvableOrdersProjection, tradesProjection];
