import type { Budget } from './budget.js';
import type { Store } from './store.js';

/**
 * The store with every failed operation reported to `onError` (`jobs.get`, `claims.claim`, `kv.set`, `budget.take`, …)
 * before it is thrown on as before. Callers keep handling failures; this only counts them in one place.
 */
export function observedStore(store: Store, onError: (op: string) => void): Store {
  const watch = <T extends object>(target: T, prefix: string): T =>
    new Proxy(target, {
      get(object, key, receiver) {
        const value = Reflect.get(object, key, receiver);
        if (typeof value !== 'function' || typeof key !== 'string') return value;
        return (...args: unknown[]) => {
          const result = value.apply(object, args);
          if (!(result instanceof Promise)) return result;
          return result.catch((error: unknown) => {
            onError(`${prefix}.${key}`);
            throw error;
          });
        };
      },
    });
  const kv = watch(store.kv, 'kv');
  const claims = watch(store.claims, 'claims');
  const jobs = watch(store.jobs, 'jobs');
  return {
    kind: store.kind,
    kv,
    claims,
    jobs,
    budget: (options) => watch<Budget>(store.budget(options), 'budget'),
    close: () => store.close(),
  };
}
