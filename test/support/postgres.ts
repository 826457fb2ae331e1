/** A throwaway PostgreSQL schema per test suite, when DATABASE_URL is set. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const databaseUrl = process.env.DATABASE_URL;

export interface TestSchema {
  pool: pg.Pool;
  schema: string;
  drop(): Promise<void>;
}

export async function createTestSchema(prefix = 't'): Promise<TestSchema> {
  if (!databaseUrl) throw new Error('DATABASE_URL is not set');
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(`CREATE SCHEMA "${schema}"`);
  return {
    pool,
    schema,
    async drop() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

/** Drops a schema a test made by name (a service under test created its tables there); nothing without a database. */
export async function dropSchema(schema: string | undefined): Promise<void> {
  if (!schema || !databaseUrl) return;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
