import { KeyvCacheableMemory } from '@cacheable/memory';
import KeyvRedis, { type KeyvRedisOptions, type RedisClientType } from '@keyv/redis';
import { Keyv } from 'keyv';
import { DEFAULT_STORE_NAMESPACE } from '../config/config.js';
import type { Logger } from '../log.js';
import { type Budget, type BudgetOptions, createMemoryBudget, createRedisBudget } from './budget.js';
import { type Claims, createMemoryClaims, createRedisClaims } from './claims.js';
import type { JobStore } from './jobs.js';
import { MemoryJobStore } from './jobs-memory.js';
import { RedisJobStore } from './jobs-redis.js';
import { keys, namespaced } from './keys.js';
import { migrateV1 } from './migrate-v1.js';
import { connectNodeRedis } from './node-redis.js';
import { checkRedisSettings, describeRedisUrl, watchEvictionPolicy } from './redis-settings.js';

const CONNECT_TIMEOUT_MS = 5_000;
/**
 * Every Redis command gets an answer within this long, or fails: a Redis that hangs (a failover, a network
 * blackhole with the connection left open) must not leave a person without an answer. Short enough that the
 * "storage unavailable" answer comes within 3 s of Slack's ack.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;
/** How often expired cache entries are swept out of the memory store. */
const SWEEP_MS = 30_000;

/** Key-value data (caches, settings) through Keyv, plus what Keyv cannot do atomically: claims, jobs, budgets. */
export interface Store {
  readonly kind: 'memory' | 'redis';
  readonly kv: Keyv;
  readonly claims: Claims;
  readonly jobs: JobStore;
  /** A budget of uses per window, shared by every instance on the same store; one per name. */
  budget(options: BudgetOptions): Budget;
  /** Resolves when the store answers (within the command timeout on Redis); rejects when it does not. */
  ping(): Promise<void>;
  /**
   * The same store seen from `scope` (one workspace, see `keys.workspace`): every key written through it lives
   * under the scope, so nothing crosses between scopes or with the store itself, on either backend.
   */
  scoped(scope: string): Store;
  /** Deletes everything `scoped(scope)` holds (an uninstalled workspace); other scopes are untouched. */
  dropScope(scope: string): Promise<void>;
  close(): Promise<void>;
}

export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  readonly code = 'store_unavailable';
}

export interface StoreOptions {
  redisUrl?: string | undefined;
  namespace?: string;
  log: Logger;
  /** The project version 0.1 served: its jobs, kept without a project, are moved to it (on Redis, once). */
  legacyProject?: string;
  /** REDIS_ALLOW_EVICTION: start on a Redis whose maxmemory-policy may evict keys (with a warning). */
  allowEviction?: boolean;
  /** How often maxmemory-policy is read again while the store is open (tests shorten it). */
  settingsEveryMs?: number;
}

export async function createStore({
  redisUrl,
  namespace = DEFAULT_STORE_NAMESPACE,
  log,
  legacyProject,
  allowEviction = false,
  settingsEveryMs,
}: StoreOptions): Promise<Store> {
  if (!redisUrl) {
    log.warn('store.memory', {
      message:
        'Using the in-memory store: job bindings vanish on restart and replicas cannot share them. Set REDIS_URL.',
    });
    return createMemoryStore(namespace);
  }
  const client = await connectRedis(redisUrl, log);
  const policy = await checkRedisSettings(client, log, allowEviction).catch(async (error: unknown) => {
    // the settings error is what is thrown; the close is best effort.
    await client.close().catch(() => {});
    throw error;
  });
  // A Redis that refuses CONFIG GET (managed) cannot be watched either.
  const everyMs = settingsEveryMs;
  const unwatch =
    policy === undefined ? () => {} : watchEvictionPolicy(client, log, { policy, allowEviction, everyMs });
  let closed = false;
  const root = redisStore(client, namespace, () => closed);
  if (legacyProject) await migrateV1(client, root.kv, namespace, legacyProject, log);
  return {
    ...root,
    async close() {
      closed = true;
      unwatch();
      // closing on a stop: a connection that fails to close goes with the process.
      await client.close().catch(() => {});
    },
  };
}

/** Every part of the Redis store on one namespace; a scope is the same parts on a longer namespace. */
function redisStore(client: RedisClientType, namespace: string, isClosed: () => boolean): Store {
  // Throw on errors: a Redis outage must surface, not read as "no binding" and forget a thread.
  const adapter = new ClosableKeyvRedis(
    client,
    { namespace, throwOnErrors: true, throwOnConnectError: true },
    isClosed,
  );
  const scopes = new Map<string, Store>();
  return {
    kind: 'redis',
    kv: new Keyv({ store: adapter, namespace, useKeyPrefix: false, throwOnErrors: true }),
    claims: createRedisClaims(client, namespace),
    jobs: new RedisJobStore(client, namespace),
    budget: byName((options) => createRedisBudget(client, namespace, options)),
    async ping() {
      await client.ping();
    },
    scoped: (scope) =>
      cached(scopes, scope, () => redisStore(client, namespaced(namespace, keys.workspace(scope)), isClosed)),
    async dropScope(scope) {
      const match = `${namespaced(namespace, keys.workspace(checkedScope(scope)))}:*`;
      for await (const found of client.scanIterator({ MATCH: match, COUNT: 500 })) {
        if (found.length > 0) await client.unlink(found);
      }
      scopes.delete(scope);
    },
    async close() {},
  };
}

function createMemoryStore(namespace: string): Store {
  // Bounded: expired entries are swept, so caches and dedupe claims cannot grow the heap without end.
  const memory = new ExactKeyvMemory({ checkInterval: SWEEP_MS });
  const kv = new Keyv({ store: memory, namespace });
  const claims = createMemoryClaims();
  const jobs = new MemoryJobStore();
  // Each scope is a memory store of its own: nothing in one map can be read through another.
  const scopes = new Map<string, Store>();
  return {
    kind: 'memory',
    kv,
    claims,
    jobs,
    budget: byName(createMemoryBudget),
    async ping() {},
    scoped: (scope) => cached(scopes, scope, () => createMemoryStore(namespaced(namespace, keys.workspace(scope)))),
    async dropScope(scope) {
      await scopes.get(scope)?.close();
      scopes.delete(scope);
    },
    async close() {
      memory.close();
      claims.close();
      jobs.close();
      await Promise.all([...scopes.values()].map((scoped) => scoped.close()));
    },
  };
}

/** Scopes are workspace ids (Slack's `T…`/`E…`): checked, so no scope can forge another key's layout. */
const SCOPE = /^[A-Za-z0-9_-]{1,64}$/;

function checkedScope(scope: string): string {
  if (!SCOPE.test(scope)) throw new Error(`not a store scope: ${JSON.stringify(scope.slice(0, 70))}`);
  return scope;
}

function cached(scopes: Map<string, Store>, scope: string, create: () => Store): Store {
  const found = scopes.get(checkedScope(scope));
  if (found) return found;
  const made = create();
  scopes.set(scope, made);
  return made;
}

/** One budget per name, so every caller counts against the same window (in memory, the only copy of it). */
function byName(create: (options: BudgetOptions) => Budget): (options: BudgetOptions) => Budget {
  const budgets = new Map<string, Budget>();
  return (options) => {
    const budget = budgets.get(options.name) ?? create(options);
    budgets.set(options.name, budget);
    return budget;
  };
}

/** The memory adapter, telling `delete` whether the key existed as Keyv's contract says (the package always says yes). */
class ExactKeyvMemory extends KeyvCacheableMemory {
  override async delete(key: string): Promise<boolean> {
    const existed = this.store.has(key);
    await super.delete(key);
    return existed;
  }

  close(): void {
    this.store.stopIntervalCheck();
    this.getStore(undefined).stopIntervalCheck();
  }
}

/** The Redis adapter, refusing work after `close()` instead of quietly opening a new connection. */
class ClosableKeyvRedis extends KeyvRedis<unknown> {
  readonly #isClosed: () => boolean;
  constructor(client: RedisClientType, options: KeyvRedisOptions, isClosed: () => boolean) {
    super(client, options);
    this.#isClosed = isClosed;
  }
  override async getClient() {
    if (this.#isClosed()) throw new StoreUnavailableError('The store is closed');
    return super.getClient();
  }
}

async function connectRedis(redisUrl: string, log: Logger): Promise<RedisClientType> {
  const where = describeRedisUrl(redisUrl);
  try {
    // Every operation of the app's store is bounded by its guard (guard.ts).
    return await connectNodeRedis({
      url: redisUrl,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      reconnectDelayMs: (attempt) => Math.min(100 * 2 ** (attempt - 1), 5_000),
      onError: (error) => log.warn('store.redis_error', { where, error: error.message }),
      onReady: () => log.info('store.redis_ready', { where }),
    });
  } catch (error) {
    throw new StoreUnavailableError(`Cannot reach Redis at ${where} (check REDIS_URL): ${(error as Error).message}`);
  }
}
