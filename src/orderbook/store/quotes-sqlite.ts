/**
 * The quote store in the SQLite file of the log (quote-store.ts). AUTOINCREMENT: an id is never handed out
 * twice, even after its row was deleted, so an order naming an old id never finds another quote. Each save
 * is one synchronous transaction (delete the expired, insert, trim to the newest maxLive) along the
 * primary key and the expiry index: a few index steps whatever the table holds.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { QuoteData, QuoteStore, QuoteStoreLimits, StoredQuote } from './quote-store.js';
import { isQuoteId } from './quote-store.js';

export class SqliteQuoteStore implements QuoteStore {
  private readonly insert: Statement<[number, string]>;
  private readonly expire: Statement<[number]>;
  private readonly trim: Statement<[number]>;
  private readonly get: Statement<[number, number]>;
  private readonly total: Statement<[]>;
  private readonly saveTx: (quote: QuoteData, now: number) => number;

  constructor(
    db: Database,
    private readonly limits: QuoteStoreLimits,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS quotes (
      id INTEGER PRIMARY KEY AUTOINCREMENT, expires_at INTEGER NOT NULL, data TEXT NOT NULL) STRICT;
      CREATE INDEX IF NOT EXISTS quotes_expires_at ON quotes (expires_at)`);
    this.insert = db.prepare('INSERT INTO quotes (expires_at, data) VALUES (?, ?)');
    this.expire = db.prepare('DELETE FROM quotes WHERE expires_at <= ?');
    this.trim = db.prepare('DELETE FROM quotes WHERE id <= ?');
    this.get = db.prepare('SELECT id, data FROM quotes WHERE id = ? AND expires_at > ?');
    this.total = db.prepare('SELECT count(*) AS n FROM quotes');
    this.saveTx = db.transaction((quote: QuoteData, now: number) => {
      this.expire.run(now);
      const id = Number(this.insert.run(Date.parse(quote.expiration), JSON.stringify(quote)).lastInsertRowid);
      this.trim.run(id - this.limits.maxLive);
      return id;
    });
  }

  async save(quote: QuoteData, now: Date): Promise<number> {
    return this.saveTx(quote, now.getTime());
  }

  async find(id: number, now: Date): Promise<StoredQuote | null> {
    if (!isQuoteId(id)) return null;
    const row = this.get.get(id, now.getTime()) as { id: number; data: string } | undefined;
    return row ? { ...(JSON.parse(row.data) as QuoteData), id: row.id } : null;
  }

  async count(): Promise<number> {
    return (this.total.get() as { n: number }).n;
  }
}
