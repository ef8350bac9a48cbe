import { existsSync } from 'node:fs';
import { ConfigError, loadEnvFile, nextStep, parseConfig } from './config.js';
import { applyHeapPolicy } from './heap.js';
import { configuredSecrets, createLogger } from './log.js';
import { TokenRefusedError } from './slack/token-check.js';

loadEnvFile();
let config: ReturnType<typeof parseConfig>;
try {
  config = parseConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n\n${nextStep(existsSync('.env'))}\n`);
  process.exit(78); // EX_CONFIG
}

applyHeapPolicy(config.role);
const log = createLogger(config.logLevel).hiding(configuredSecrets(config));
process.on('unhandledRejection', (reason) => log.error('process.unhandled_rejection', { error: reason }));

// Loaded only once the configuration is valid, so a first run's mistakes are reported before Bolt and Redis load.
const { startApp, STOP_DEADLINE_MS } = await import('./app.js');
const { StoreUnavailableError } = await import('./store/store.js');
const { WrongEncryptionKeyError } = await import('./tenants/sealing-check.js');

try {
  const app = await startApp(config, { log });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('app.stopping', { signal });
    // One deadline for every drain (see STOP_DEADLINE_MS); this timer only catches a stop that overruns it.
    const force = setTimeout(() => process.exit(1), STOP_DEADLINE_MS + 1_000).unref();
    await app.stop();
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
} catch (error) {
  if (error instanceof WrongEncryptionKeyError) {
    log.error('app.start_failed', { error: error.message });
    process.stderr.write(`${error.message}\n`);
    process.exit(78); // EX_CONFIG: the configuration, not the machine, is wrong
  }
  const message =
    error instanceof StoreUnavailableError || error instanceof TokenRefusedError
      ? error.message
      : `Failed to start: ${(error as Error).message}`;
  log.error('app.start_failed', { error: message });
  if (error instanceof TokenRefusedError) {
    process.stderr.write(
      `${message}\nCopy the ${error.variable} of your Slack app into .env (docs/troubleshooting.md).\n`,
    );
  }
  process.exit(1);
}
