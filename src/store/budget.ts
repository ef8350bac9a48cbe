import type { RedisClientType } from '@keyv/redis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { createMemorySlidingBudget, createRedisSlidingBudget } from './sliding-budget.js';

/**
 * `points` uses per key in a window: a fixed window from the key's first use (rate-limiter-flexible does the
 * counting), or a sliding one (`sliding-budget.ts`: how Slack counts its tiers).
 */
export interface BudgetOptions {
  /** Names the budget in store keys. */
  name: string;
  points: number;
  durationMs: number;
  sliding?: boolean;
}

export interface BudgetUse {
  /** False when the budget was already spent: nothing was taken. */
  ok: boolean;
  used: number;
  left: number;
  /**
   * A fixed window: when it ends and the budget is whole again (0 when unused). A sliding one: when a use is free
   * again (0 while uses are left).
   */
  resetInMs: number;
  /** A sliding budget's use taken: what `touch` names. */
  id?: string;
}

export interface Budget {
  /** Takes one use of `key`'s budget if any is left. */
  take(key: string): Promise<BudgetUse>;
  /**
   * A sliding budget only: counts use `id` from now, as the call it paid for ended (the service counted it somewhere
   * between the take and its answer, so a use freed before the service forgot it would let one call too many in).
   */
  touch?(key: string, id: string): Promise<void>;
  /** A sliding budget only: refuses every use of `key` for `ms` (the service said to wait that long). */
  hold?(key: string, ms: number): Promise<void>;
  /** Gives back a use that bought nothing (the service refused before doing the work). */
  refund(key: string): Promise<void>;
  /** How much of `key`'s budget is used, taking nothing. */
  peek(key: string): Promise<BudgetUse>;
}

export function createRedisBudget(client: RedisClientType, prefix: string, options: BudgetOptions): Budget {
  if (options.sliding) return createRedisSlidingBudget(client, prefix, options);
  return wrap(
    new RateLimiterRedis({
      storeClient: client,
      useRedisPackage: true,
      // Fail at once while disconnected, like every other store call: Slack must get an answer in time.
      rejectIfRedisNotReady: true,
      keyPrefix: `${prefix}:${options.name}`,
      points: options.points,
      duration: Math.ceil(options.durationMs / 1000),
    }),
    options.points,
  );
}

export function createMemoryBudget(options: BudgetOptions): Budget {
  if (options.sliding) return createMemorySlidingBudget(options);
  return wrap(
    new RateLimiterMemory({
      keyPrefix: options.name,
      points: options.points,
      duration: Math.ceil(options.durationMs / 1000),
    }),
    options.points,
  );
}

function wrap(limiter: RateLimiterAbstract, points: number): Budget {
  const use = (res: RateLimiterRes | null, ok: boolean): BudgetUse => {
    const used = Math.min(points, res?.consumedPoints ?? 0);
    return { ok, used, left: points - used, resetInMs: res?.msBeforeNext ?? 0 };
  };
  return {
    async take(key) {
      try {
        return use(await limiter.consume(key), true);
      } catch (rejection) {
        // rate-limiter-flexible rejects with its result when the budget is spent, with an Error when the store fails.
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        // It counts the refused use too: give it back, or a use refunded later would not reopen a slot.
        await limiter.reward(key, 1);
        return use(rejection, false);
      }
    },
    async refund(key) {
      await limiter.reward(key, 1);
    },
    async peek(key) {
      const now = use(await limiter.get(key), true);
      return { ...now, ok: now.left > 0 };
    },
  };
}
