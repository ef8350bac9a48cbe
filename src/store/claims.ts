import type { RedisClientType } from '@keyv/redis';

/**
 * The store's atomic operations: claims and leases (SET NX PX), rolling counters and one set index.
 * Keyv alone only offers get-then-set, which races between replicas.
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
  /** Adds one to a counter that lives `windowMs` from its first increment. */
  increment(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
  /** Reads a counter without changing it. */
  peek(key: string): Promise<{ count: number; resetInMs: number }>;
  addMember(set: string, member: string): Promise<void>;
  removeMember(set: string, member: string): Promise<void>;
  members(set: string): Promise<string[]>;
}

/**
 * Single-process claims. Correct for one instance only: replicas need the Redis implementation.
 */
export function createMemoryClaims(now: () => number = Date.now): Claims {
  const held = new Map<string, { value: string; expiresAt: number }>();
  const sets = new Map<string, Set<string>>();
  const live = (key: string) => {
    const entry = held.get(key);
    if (entry && entry.expiresAt <= now()) held.delete(key);
    return held.get(key);
  };
  const counter = (key: string) => {
    const entry = live(key);
    return { count: entry ? Number(entry.value) : 0, resetInMs: entry ? entry.expiresAt - now() : 0 };
  };
  return {
    async claim(key, owner, ttlMs) {
      if (live(key)) return false;
      held.set(key, { value: owner, expiresAt: now() + ttlMs });
      return true;
    },
    async renew(key, owner, ttlMs) {
      const entry = live(key);
      if (entry && entry.value !== owner) return false;
      held.set(key, { value: owner, expiresAt: now() + ttlMs });
      return true;
    },
    async takeOver(key, owner, ttlMs) {
      held.set(key, { value: owner, expiresAt: now() + ttlMs });
    },
    async release(key, owner) {
      if (live(key)?.value === owner) held.delete(key);
    },
    async increment(key, windowMs) {
      const entry = live(key);
      const next = {
        value: String((entry ? Number(entry.value) : 0) + 1),
        expiresAt: entry?.expiresAt ?? now() + windowMs,
      };
      held.set(key, next);
      return { count: Number(next.value), resetInMs: next.expiresAt - now() };
    },
    async peek(key) {
      return counter(key);
    },
    async addMember(set, member) {
      sets.set(set, (sets.get(set) ?? new Set()).add(member));
    },
    async removeMember(set, member) {
      sets.get(set)?.delete(member);
    },
    async members(set) {
      return [...(sets.get(set) ?? [])];
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
const INCREMENT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

/** Claims shared by every instance on one Redis; keys live under `prefix`. */
export function createRedisClaims(client: RedisClientType, prefix: string): Claims {
  const k = (key: string) => `${prefix}:${key}`;
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
    async increment(key, windowMs) {
      const [count, pttl] = (await client.eval(INCREMENT, { keys: [k(key)], arguments: [String(windowMs)] })) as [
        number,
        number,
      ];
      return { count, resetInMs: Math.max(0, pttl) };
    },
    async peek(key) {
      const [count, pttl] = await Promise.all([client.get(k(key)), client.pTTL(k(key))]);
      return { count: Number(count ?? 0), resetInMs: Math.max(0, pttl) };
    },
    async addMember(set, member) {
      await client.sAdd(k(set), member);
    },
    async removeMember(set, member) {
      await client.sRem(k(set), member);
    },
    async members(set) {
      return client.sMembers(k(set));
    },
  };
}
