import { randomUUID } from 'node:crypto';
import type { RedisClientType } from '@keyv/redis';
import type { Budget, BudgetOptions, BudgetUse } from './budget.js';
import { namespaced } from './keys.js';

/**
 * A sliding window, as Slack counts its tiers: at most `points` uses in any `durationMs`, each use leaving the window
 * `durationMs` after it was taken (or touched), so a burst of `points` passes at once and the steady rate is the
 * whole budget. rate-limiter-flexible only counts fixed windows, where the uses of two windows can meet within one
 * sliding window: a budget counted that way must stay at half of the limit it keeps under.
 */

interface Use {
  at: number;
  id: string;
}

/** The use whose leaving frees a slot: ms until then, 0 while uses are left. */
const waitMs = (uses: readonly Use[], points: number, durationMs: number, now: number) => {
  const freeing = uses.length >= points ? uses[uses.length - points] : undefined;
  return freeing === undefined ? 0 : Math.max(1, freeing.at + durationMs - now);
};

const report = (ok: boolean, used: number, points: number, resetInMs: number, id?: string): BudgetUse => {
  const counted = Math.min(points, used);
  return { ok, used: counted, left: points - counted, resetInMs, ...(id ? { id } : {}) };
};

export function createMemorySlidingBudget({ points, durationMs }: BudgetOptions, now = Date.now): Budget {
  const byKey = new Map<string, Use[]>();
  const heldUntil = new Map<string, number>();
  /** A hold still on: every take and peek is refused until it ends. */
  const held = (key: string, at: number, used: number) => {
    const until = heldUntil.get(key) ?? 0;
    if (until > at) return report(false, used, points, until - at);
    heldUntil.delete(key);
    return undefined;
  };
  /** `key`'s uses still in the window, oldest first. */
  const recent = (key: string, at: number) => {
    const kept = (byKey.get(key) ?? []).filter((use) => use.at > at - durationMs);
    if (kept.length > 0) byKey.set(key, kept);
    else byKey.delete(key);
    return kept;
  };
  return {
    async take(key) {
      const at = now();
      const uses = recent(key, at);
      const refused = held(key, at, uses.length);
      if (refused) return refused;
      if (uses.length >= points) return report(false, uses.length, points, waitMs(uses, points, durationMs, at));
      const id = randomUUID();
      uses.push({ at, id });
      byKey.set(key, uses);
      return report(true, uses.length, points, waitMs(uses, points, durationMs, at), id);
    },
    async touch(key, id) {
      const at = now();
      const uses = recent(key, at);
      const found = uses.findIndex((use) => use.id === id);
      if (found < 0) return;
      uses.splice(found, 1);
      uses.push({ at, id });
      byKey.set(key, uses);
    },
    async refund(key) {
      recent(key, now()).pop();
    },
    async hold(key, ms) {
      heldUntil.set(key, Math.max(heldUntil.get(key) ?? 0, now() + ms));
    },
    async peek(key) {
      const at = now();
      const uses = recent(key, at);
      const refused = held(key, at, uses.length);
      if (refused) return refused;
      return report(uses.length < points, uses.length, points, waitMs(uses, points, durationMs, at));
    },
  };
}

/**
 * The uses of one key are a sorted set scored by Redis' own clock, so every instance counts on one clock; a hold is
 * a key beside it, holding when it ends.
 */
const SLIDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local points, window, op, id = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if op == 'refund' then
  redis.call('ZPOPMAX', KEYS[1])
  return {0, 0, 0}
end
if op == 'hold' then
  local ends = now + tonumber(id)
  if ends > tonumber(redis.call('GET', KEYS[2]) or 0) then redis.call('SET', KEYS[2], ends, 'PX', id) end
  return {0, 0, 0}
end
if op == 'touch' then
  if redis.call('ZADD', KEYS[1], 'XX', 'CH', now, id) == 1 then redis.call('PEXPIRE', KEYS[1], window) end
  return {0, 0, 0}
end
local used = redis.call('ZCARD', KEYS[1])
local ends = tonumber(redis.call('GET', KEYS[2]) or 0)
if ends > now then return {0, used, ends - now} end
local ok = used < points and 1 or 0
if op == 'take' and ok == 1 then
  redis.call('ZADD', KEYS[1], now, id)
  redis.call('PEXPIRE', KEYS[1], window)
  used = used + 1
end
local wait = 0
if used >= points then
  local freeing = redis.call('ZRANGE', KEYS[1], used - points, used - points, 'WITHSCORES')
  wait = math.max(1, tonumber(freeing[2]) + window - now)
end
return {ok, used, wait}`;

export function createRedisSlidingBudget(client: RedisClientType, prefix: string, options: BudgetOptions): Budget {
  const { points, durationMs } = options;
  /** `id`: the use to touch, the one to take, or how long to hold (ms). */
  const run = async (key: string, op: 'take' | 'peek' | 'refund' | 'touch' | 'hold', id: string = randomUUID()) => {
    const args = [String(points), String(durationMs), op, id];
    const uses = namespaced(prefix, `${options.name}:${key}`);
    const keys = [uses, `${uses}:hold`];
    const [ok, used, wait] = (await client.eval(SLIDE, { keys, arguments: args })) as [number, number, number];
    return report(ok === 1, used, points, wait, op === 'take' && ok === 1 ? id : undefined);
  };
  return {
    take: (key) => run(key, 'take'),
    async touch(key, id) {
      await run(key, 'touch', id);
    },
    async refund(key) {
      await run(key, 'refund');
    },
    async hold(key, ms) {
      await run(key, 'hold', String(Math.max(1, Math.ceil(ms))));
    },
    peek: (key) => run(key, 'peek'),
  };
}
