/** Starting the real service in-process for a test, on free ports and a fresh data directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/wiring/config.js';
import { startService, type Service } from '../../src/wiring/service.js';

export interface TestService extends Service {
  dataDir: string;
}

/**
 * `env` is applied on top of: PORT=0, a temporary DATA_DIR, NETWORKS=mainnet (one embedded anvil) unless
 * the test names its own networks, ORDERBOOK=off (gateway tests want a chain nobody else writes to;
 * order book tests set ORDERBOOK=on) and DEV_SOLVER=off (a test's crossing orders stay open for its own
 * solver; the dev solver's tests set DEV_SOLVER=on).
 */
export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ethgate-test-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, NETWORKS: 'mainnet', ORDERBOOK: 'off', DEV_SOLVER: 'off', LOG_LEVEL: 'silent', ...env });
  const service = await startService(config);
  return {
    ...service,
    // A getter: the order book may come up after start (see orderbook/supervisor.ts).
    get orderbook() {
      return service.orderbook;
    },
    dataDir,
    async stop() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
