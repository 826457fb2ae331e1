/**
 * `npm start`: load the configuration, start the service, and stop it cleanly on SIGINT/SIGTERM so that no
 * embedded chain is left behind.
 */
import { loadConfig, ConfigError } from './config.js';
import { logger } from './logger.js';
import { startService } from './service.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      logger.fatal(`configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  logger.level = config.logLevel;
  const service = await startService(config);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    service.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err) => {
  logger.fatal({ err }, 'service failed to start');
  process.exit(1);
});
