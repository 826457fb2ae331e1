/**
 * The quote store in the PostgreSQL schema of the log (quote-store.ts), shared by every instance: an
 * identity column hands out ids (never twice), and each save is one statement (a CTE deleting the expired
 * and the oldest beyond maxLive beside the insert), so instances saving together need no lock. Ids taken by
 * a failed insert leave gaps, which only make the trim keep fewer than maxLive.
 */
import type pg from 'pg';
import type { QuoteData, QuoteStore, QuoteStoreLimits, StoredQuote } from './quote-store.js';
import { isQuoteId } from './quote-store.js';

export class PostgresQuoteStore implements QuoteStore {
  private ready: Promise<void> | undefined;
  private readonly table: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly limits: QuoteStoreLimits,
  ) {
    this.table = `"${schema}".quotes`;
  }

  /** The table, created at first use (concurrent first uses take turns on an advisory lock). */
  private prepared(): Promise<void> {
    this.ready ??= (async () => {
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.schema}.quotes`]);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.table} (
          id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, expires_at bigint NOT NULL, data jsonb NOT NULL)`);
        await client.query(`CREATE INDEX IF NOT EXISTS quotes_expires_at ON ${this.table} (expires_at)`);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        this.ready = undefined;
        throw err;
      } finally {
        client.release();
      }
    })();
    return this.ready;
  }

  async save(quote: QuoteData, now: Date): Promise<number> {
    await this.prepared();
    // The deletes see the snapshot before the insert; the trim uses the new id, so it keeps the newest maxLive.
    const res = await this.pool.query<{ id: string }>(
      `WITH added AS (INSERT INTO ${this.table} (expires_at, data) VALUES ($1, $2) RETURNING id),
            expired AS (DELETE FROM ${this.table} WHERE expires_at <= $3),
            trimmed AS (DELETE FROM ${this.table} WHERE id <= (SELECT id FROM added) - $4)
       SELECT id FROM added`,
      [Date.parse(quote.expiration), JSON.stringify(quote), now.getTime(), this.limits.maxLive],
    );
    return Number(res.rows[0].id);
  }

  async find(id: number, now: Date): Promise<StoredQuote | null> {
    if (!isQuoteId(id)) return null;
    await this.prepared();
    const res = await this.pool.query<{ id: string; data: QuoteData }>(
      `SELECT id, data FROM ${this.table} WHERE id = $1 AND expires_at > $2`,
      [id, now.getTime()],
    );
    const row = res.rows[0];
    return row ? { ...row.data, id: Number(row.id) } : null;
  }

  async count(): Promise<number> {
    await this.prepared();
    const res = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.table}`);
    return Number(res.rows[0].n);
  }
}
