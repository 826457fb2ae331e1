/**
 * `npm start`: load the configuration, start the service, and stop it cleanly on SIGINT/SIGTERM so that no
 * embedded chain is left behind. The handlers are installed before anything starts (a signal during start
 * stops the service as soon as it is up), and the service also stops when its parent goes away: under
 * `npm start` a SIGTERM to npm may end npm without reaching this process, which is then re-parented.
 */
import { loadConfig, ConfigError } from './config.js';
import { logger } from '../shared/logger.js';
import { startService } from './service.js';

/** Time allowed for a clean stop; embedded anvils die with this process anyway (setpriv --pdeathsig). */
const STOP_DEADLINE_MS = 4_500;
const PARENT_CHECK_MS = 250;

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
  const starting = startService(config);

  let stopping = false;
  const shutdown = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => process.exit(1), STOP_DEADLINE_MS);
    force.unref();
    starting
      .then((service) => service.stop())
      .then(
        () => process.exit(code),
        (err) => {
          logger.error({ err }, 'stop failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  const parent = process.ppid;
  if (parent > 1) {
    const watch = setInterval(() => process.ppid !== parent && shutdown('parent exited'), PARENT_CHECK_MS);
    watch.unref();
  }

  // The last-resort guard. Request handlers, WebSocket frames and worker hand-offs catch their own faults
  // (the request fails, the service goes on); this is for what slips past them. A rejected promise nobody
  // waits for left no half-run code behind, so it is logged and the service keeps serving. An uncaught
  // exception may have stopped any code half-way, so the service stops cleanly (acknowledged orders are
  // already durable) and exits 1 for the process manager to restart it.
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'a promise failed with nobody waiting for it; the service goes on');
  });
  process.on('uncaughtException', (err, origin) => {
    logger.fatal({ err, origin }, 'uncaught exception: stopping');
    shutdown('uncaughtException', 1);
  });
  await starting;
}

main().catch((err) => {
  logger.fatal({ err }, 'service failed to start');
  process.exit(1);
});
