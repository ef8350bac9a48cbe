import { withDeadline } from '../deadline.js';
import type { Budget } from './budget.js';
import { type Store, StoreUnavailableError } from './store.js';

export interface GuardOptions {
  /** Told of every failed operation (`jobs.get`, `claims.claim`, `kv.set`, `budget.take`, …), for metrics. */
  onError: (op: string) => void;
  /**
   * Every operation answers within this long, or fails with `StoreUnavailableError`. node-redis's own command
   * timeout only covers a command waiting to be written, not one waiting for its reply, so a Redis that hangs with
   * the connection open (a failover, a network blackhole) would otherwise hold the caller for ever.
   */
  deadlineMs?: number;
}

/**
 * The store as features use it: each operation bounded in time and each failure counted, in one place, then
 * thrown on as before so callers keep handling it. The late answer of an operation cut off is dropped.
 */
export function guardStore(store: Store, options: GuardOptions): Store {
  const { onError, deadlineMs } = options;
  const bounded = <T>(op: string, result: Promise<T>): Promise<T> => {
    if (!deadlineMs) return result;
    return withDeadline(
      result,
      deadlineMs,
      () => new StoreUnavailableError(`The store did not answer ${op} within ${deadlineMs} ms`),
    );
  };
  const watch = <T extends object>(target: T, prefix: string): T =>
    new Proxy(target, {
      get(object, key, receiver) {
        const value = Reflect.get(object, key, receiver);
        if (typeof value !== 'function' || typeof key !== 'string') return value;
        return (...args: unknown[]) => {
          const result = value.apply(object, args);
          if (!(result instanceof Promise)) return result;
          const op = `${prefix}.${key}`;
          return bounded(op, result).catch((error: unknown) => {
            onError(op);
            throw error;
          });
        };
      },
    });
  return {
    kind: store.kind,
    kv: watch(store.kv, 'kv'),
    claims: watch(store.claims, 'claims'),
    jobs: watch(store.jobs, 'jobs'),
    budget: (options) => watch<Budget>(store.budget(options), 'budget'),
    ping: () => bounded('ping', store.ping()),
    scoped: (scope) => guardStore(store.scoped(scope), options),
    // Not bounded: a scope's keys are deleted in batches after the ack, however long a slow Redis takes.
    dropScope: (scope) =>
      store.dropScope(scope).catch((error: unknown) => {
        onError('dropScope');
        throw error;
      }),
    close: () => store.close(),
  };
}
