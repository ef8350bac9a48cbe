import type { Logger } from '../log.js';
import type { Store } from './store.js';

/** How often the store is asked whether it answers. */
const CHECK_EVERY_MS = 1_000;

export interface StoreHealth {
  /** False while the store does not answer (Redis down or hung): `/healthz` says 503 then. */
  healthy(): boolean;
  stop(): void;
}

/**
 * Asks the store every second whether it answers (a PING within the command timeout on Redis), so `/healthz`
 * follows it: 503 while Redis is down or hangs, 200 again once it answers, without a restart. Each change is logged.
 */
export function watchStoreHealth(store: Pick<Store, 'ping'>, log: Logger, everyMs = CHECK_EVERY_MS): StoreHealth {
  let healthy = true;
  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    const ok = await store.ping().then(
      () => true,
      () => false,
    );
    checking = false;
    if (ok !== healthy) (ok ? log.info : log.error)(ok ? 'store.healthy' : 'store.unhealthy', {});
    healthy = ok;
  };
  const timer = setInterval(() => void check(), everyMs);
  timer.unref();
  return { healthy: () => healthy, stop: () => clearInterval(timer) };
}
