// First: V8's heap flags for the role, before the modules below load (heap-first.ts).
import './app/heap-first.js';
import { existsSync } from 'node:fs';
import { STOP_DEADLINE_MS } from './app/stopping.js';
import { parseConfig } from './config/config.js';
import { ConfigError, nextStep } from './config/config-error.js';
import { configuredSecrets, createLogger } from './log.js';
import { TokenRefusedError } from './slack/token-check.js';

let config: ReturnType<typeof parseConfig>;
try {
  config = parseConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n\n${nextStep(existsSync('.env'))}\n`);
  process.exit(78); // EX_CONFIG
}

const log = createLogger(config.logLevel).hiding(configuredSecrets(config));
process.on('unhandledRejection', (reason) => log.error('process.unhandled_rejection', { error: reason }));
// Node's own report of an exception nothing caught would print its message (a key in it, say) as is: it goes
// through the log instead, then the process ends as Node would end it (resuming after one is not safe).
process.on('uncaughtException', (error) => {
  log.error('process.uncaught_exception', { error });
  process.exit(1);
});

// The handlers come first: a stop while the app loads or waits for Slack's first answer ends the start at once. In
// a container the app is PID 1, which ignores a signal it has no handler for until the runtime kills it.
const starting = new AbortController();
let app: { stop(): Promise<void> } | undefined;
let stopping = false;
// A stop ends with process.exit(): what the app abandoned (a request Slack or Mintlify has not answered) must not
// hold the process past its deadline.
const stopNow = async (running: { stop(): Promise<void> }) => {
  await running.stop();
  process.exit(0);
};
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info('app.stopping', { signal, started: app !== undefined });
  // One deadline for every drain (see STOP_DEADLINE_MS); this timer only catches a stop that overruns it.
  setTimeout(() => process.exit(1), STOP_DEADLINE_MS + 1_000).unref();
  if (app) void stopNow(app);
  else starting.abort(); // the start closes what it opened and rejects: the catch below exits
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));

// Loaded only once the configuration is valid, so a first run's mistakes are reported before Bolt and Redis load.
const { startApp } = await import('./app/app.js');
const { StoreUnavailableError } = await import('./store/store.js');
const { WrongEncryptionKeyError } = await import('./tenants/sealing-check.js');

/** Says why the start failed, and the exit code that says it to the supervisor. */
function startFailed(error: unknown): number {
  if (error instanceof WrongEncryptionKeyError) {
    log.error('app.start_failed', { error: error.message });
    process.stderr.write(`${error.message}\n`);
    return 78; // EX_CONFIG: the configuration, not the machine, is wrong
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
  return 1;
}

/** How long a start that failed waits for its loop to empty before process.exit() (see below). */
const EXIT_FALLBACK_MS = 2_000;

try {
  app = await startApp(config, { log, stop: starting.signal });
  if (stopping) await stopNow(app); // the stop came as the start was finishing
} catch (error) {
  if (stopping) {
    log.info('app.stopped', { during: 'start' });
    process.exit(0);
  }
  // A start that failed closed what it opened, so the process ends once its loop is empty. Not process.exit() at
  // once: it can deadlock while V8 still compiles the app in the background (nodejs/node#54918: the main thread joins
  // compile threads that wait for a garbage collection only it could run), seen as a refused token's process
  // hanging until SIGKILL. Whatever is still open after EXIT_FALLBACK_MS is ended by process.exit().
  process.exitCode = startFailed(error);
  setTimeout(() => process.exit(), EXIT_FALLBACK_MS).unref();
}
