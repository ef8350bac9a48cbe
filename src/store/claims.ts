import { CacheableMemory } from '@cacheable/memory';
import type { RedisClientType } from '@keyv/redis';
import { namespaced } from './keys.js';

/**
 * Claims and leases (SET NX PX): who holds a key, for how long. Keyv alone only offers get-then-set,
 * which races between replicas.
 */
export interface Claims {
  /** Takes `key` for `owner` for `ttlMs` if nobody holds it. True when this caller now holds it. */
  claim(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Extends the hold when `owner` still holds `key`, or takes it when it is free. */
  renew(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Takes `key` for `owner` whoever holds it (a follow-up moves a job's lease to the instance that took it). */
  takeOver(key: string, owner: string, ttlMs: number): Promise<void>;
  /** Lets go of `key` if `owner` holds it. */
  release(key: string, owner: string): Promise<void>;
}

/** What `underLease` answers when another holder has the lease. */
export const BUSY = { ok: false, reason: 'busy' } as const;

/**
 * Runs `work` while `owner` holds `key`, across replicas: `BUSY` when another holds it. The lease is let go as soon
 * as the work ends, and lapses after `ttlMs` should the process die first.
 */
export async function underLease<T>(
  { claims, owner }: { claims: Claims; owner: string },
  key: string,
  ttlMs: number,
  work: () => Promise<T>,
): Promise<T | typeof BUSY> {
  if (!(await claims.claim(key, owner, ttlMs))) return BUSY;
  try {
    return await work();
  } finally {
    // the store guard counts the failure; the lease lapses by its TTL.
    await claims.release(key, owner).catch(() => {});
  }
}

/** What `oncePerBurst` answers for a repeat of work that is running or was done within its window. */
export const REPEATED = { ok: false, reason: 'repeated' } as const;

/**
 * Runs `work` once for a burst of the same request, across replicas (a button clicked twice): a repeat within
 * `windowMs` of one that is running or succeeded is `REPEATED`. A failure lets go at once, so trying again works.
 */
export async function oncePerBurst<T extends { ok: boolean }>(
  { claims, owner }: { claims: Claims; owner: string },
  key: string,
  windowMs: number,
  work: () => Promise<T>,
): Promise<T | typeof REPEATED> {
  if (!(await claims.claim(key, owner, windowMs))) return REPEATED;
  let result: T | undefined;
  try {
    result = await work();
    return result;
  } finally {
    // the store guard counts a failed release; the claim lapses by its window.
    if (!result?.ok) await claims.release(key, owner).catch(() => {});
  }
}

/** How often expired claims are swept out of memory, so a stream of short claims cannot grow the map. */
const SWEEP_MS = 30_000;

/** Single-process claims. Correct for one instance only: replicas need the Redis implementation. */
export function createMemoryClaims(sweepMs = SWEEP_MS): Claims & { close(): void; readonly size: number } {
  const held = new CacheableMemory({ checkInterval: sweepMs, useClone: false });
  return {
    /** Claims held in memory, expired ones included until the next sweep. */
    get size() {
      return held.size;
    },
    async claim(key, owner, ttlMs) {
      if (held.has(key)) return false;
      held.set(key, owner, ttlMs);
      return true;
    },
    async renew(key, owner, ttlMs) {
      const holder = held.get<string>(key);
      if (holder !== undefined && holder !== owner) return false;
      held.set(key, owner, ttlMs);
      return true;
    },
    async takeOver(key, owner, ttlMs) {
      held.set(key, owner, ttlMs);
    },
    async release(key, owner) {
      if (held.get(key) === owner) held.delete(key);
    },
    close() {
      held.stopIntervalCheck();
    },
  };
}

const RENEW = `
local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

/** Claims shared by every instance on one Redis; keys live under `prefix`. */
export function createRedisClaims(client: RedisClientType, prefix: string): Claims {
  const k = (key: string) => namespaced(prefix, key);
  return {
    async claim(key, owner, ttlMs) {
      return (await client.set(k(key), owner, { condition: 'NX', expiration: { type: 'PX', value: ttlMs } })) === 'OK';
    },
    async renew(key, owner, ttlMs) {
      return (await client.eval(RENEW, { keys: [k(key)], arguments: [owner, String(ttlMs)] })) === 1;
    },
    async takeOver(key, owner, ttlMs) {
      await client.set(k(key), owner, { expiration: { type: 'PX', value: ttlMs } });
    },
    async release(key, owner) {
      await client.eval(RELEASE, { keys: [k(key)], arguments: [owner] });
    },
  };
}
