/** The small SQL both stores share: WHERE / ORDER BY / LIMIT from a Query, on declared columns only. */
import type { Projection, Query } from './types.js';

const OPS = new Set(['=', '>', '>=', '<', '<=']);

export function whereClause(
  projection: Projection<any>,
  query: Query,
  placeholder: (index: number) => string,
): { sql: string; params: (string | number | boolean)[] } {
  const known = (column: string) => {
    if (column !== 'position' && column !== 'id' && !(column in projection.columns)) {
      throw new Error(`read model ${projection.name} has no column ${column}`);
    }
    return column;
  };
  const params: (string | number | boolean)[] = [];
  const conditions = (query.where ?? []).map((c) => {
    if (!OPS.has(c.op)) throw new Error(`unknown operator ${c.op}`);
    params.push(c.value);
    return `${known(c.column)} ${c.op} ${placeholder(params.length)}`;
  });
  if (query.after !== undefined) {
    const columns = (query.orderBy ?? []).map((o) => o.column);
    if (columns.length !== query.after.length || (query.orderBy ?? []).some((o) => o.desc)) {
      throw new Error('a cursor needs one value per orderBy column, all ascending');
    }
    const places = query.after.map((value) => {
      params.push(value);
      return placeholder(params.length);
    });
    conditions.push(`(${columns.map(known).join(', ')}) > (${places.join(', ')})`);
  }
  let sql = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  const order = (query.orderBy ?? []).map((o) => `${known(o.column)}${o.desc ? ' DESC' : ''}`);
  if (order.length > 0) sql += ` ORDER BY ${order.join(', ')}`;
  if (query.limit !== undefined) {
    params.push(query.limit);
    sql += ` LIMIT ${placeholder(params.length)}`;
  }
  if (query.offset !== undefined) {
    if (query.limit === undefined) throw new Error('an offset needs a limit');
    params.push(query.offset);
    sql += ` OFFSET ${placeholder(params.length)}`;
  }
  return { sql, params };
}
