import { once } from 'node:events';
import type { Config } from '../config/config.js';
import { STEP_LANES } from '../lanes.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { createEngine } from '../queue/create.js';
import type { Engine, JobObserver } from '../queue/engine.js';
import { queueNamespace } from '../queue/redis-connection.js';
import { guardStore } from '../store/guard.js';
import { createStore, REDIS_COMMAND_TIMEOUT_MS, type Store } from '../store/store.js';
import { checkSealingKey } from '../tenants/sealing-check.js';
import { createSecrets } from '../tenants/secrets.js';

// Opening the app's store (guarded, its sealing key checked) and its queue engine, for `startApp`.

export function openEngine(config: Config, log: Logger, observer: JobObserver): Promise<Engine> {
  return createEngine({
    redisUrl: config.redisUrl,
    // The deployment's own queues: its project, or its Slack app when it serves many workspaces.
    namespace: queueNamespace(config.storeNamespace, config.oauth?.clientId ?? config.mintlify.projectId),
    log,
    observer,
    timings: { lockDurationMs: config.queueLockMs, stalledIntervalMs: Math.round(config.queueLockMs / 2) },
    stepLanes: STEP_LANES,
  });
}

/** `store`: one opened by the caller (`StartOptions.store`); `stop`: a stop asked for while starting. */
export async function openStore(
  config: Config,
  options: { store?: Store | undefined; stop?: AbortSignal | undefined },
  log: Logger,
  metrics: Metrics,
): Promise<Store> {
  options.stop?.throwIfAborted(); // stopped while loading: nothing is open yet
  const opened =
    options.store ??
    (await untilStopped(
      createStore({
        redisUrl: config.redisUrl,
        log,
        namespace: config.storeNamespace,
        legacyProject: config.mintlify.projectId,
        allowEviction: config.redisAllowEviction,
      }),
      options.stop,
    ));
  const deadlineMs = opened.kind === 'redis' ? REDIS_COMMAND_TIMEOUT_MS : undefined;
  const store = guardStore(opened, { onError: metrics.storeError, ...(deadlineMs && { deadlineMs }) });
  // Many workspaces: a wrong SETTINGS_ENCRYPTION_KEY stops the start here, not every request later.
  const { oauth } = config;
  if (oauth) {
    const secrets = createSecrets(oauth.encryptionKey, oauth.previousEncryptionKeys);
    await checkSealingKey(store, secrets, log).catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
  }
  return store;
}

/**
 * The store being opened, or the stop's reason as soon as a stop comes: a Redis that does not answer would otherwise
 * hold the stop for its connect timeout. A store that opens after the stop is closed then.
 */
async function untilStopped(opening: Promise<Store>, stop: AbortSignal | undefined): Promise<Store> {
  if (!stop) return opening;
  const stopped = once(stop, 'abort').then(() => {
    void opening.then((store) => store.close()).catch(() => {});
    throw stop.reason;
  });
  return Promise.race([opening, stopped]);
}
