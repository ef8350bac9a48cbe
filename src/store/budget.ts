import type { RedisClientType } from '@keyv/redis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** A fixed window of `points` uses per key, from the key's first use (rate-limiter-flexible does the counting). */
export interface BudgetOptions {
  /** Names the budget in store keys. */
  name: string;
  points: number;
  durationMs: number;
}

export interface BudgetUse {
  /** False when the budget was already spent: nothing was taken. */
  ok: boolean;
  used: number;
  left: number;
  /** When the window ends and the budget is whole again (0 when unused). */
  resetInMs: number;
}

export interface Budget {
  /** Takes one use of `key`'s budget if any is left. */
  take(key: string): Promise<BudgetUse>;
  /** Gives back a use that bought nothing (the service refused before doing the work). */
  refund(key: string): Promise<void>;
  /** How much of `key`'s budget is used, taking nothing. */
  peek(key: string): Promise<BudgetUse>;
}

export function createRedisBudget(client: RedisClientType, prefix: string, options: BudgetOptions): Budget {
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
