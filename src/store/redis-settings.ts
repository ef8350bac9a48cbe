import type { RedisClientType } from '@keyv/redis';
import type { Logger } from '../log.js';

/** The one maxmemory-policy that never evicts: volatile-* evict too, and job records and claims carry a TTL. */
const SAFE_POLICY = 'noeviction';

/** Redis may evict the app's keys and the operator did not opt in (REDIS_ALLOW_EVICTION): the app does not start. */
export class RedisEvictsError extends Error {
  override name = 'RedisEvictsError';
  readonly code = 'redis_evicts';
  constructor(policy: string) {
    super(
      `Redis may evict the app's keys (maxmemory-policy ${policy}): under memory pressure running jobs lose their tracking and outcomes are never posted. Run CONFIG SET maxmemory-policy ${SAFE_POLICY} (or set maxmemory-policy ${SAFE_POLICY} in redis.conf; it is the only safe value), or accept the risk with REDIS_ALLOW_EVICTION=true.`,
    );
  }
}

/**
 * What the app needs of its Redis: it keeps its data (AOF or RDB snapshots) and never evicts a key
 * (`maxmemory-policy noeviction`): an evicted record or a restart without data loses running jobs' tracking.
 * A Redis that may evict is refused (RedisEvictsError) unless `allowEviction`; then it is a warning.
 * A managed Redis may refuse CONFIG GET; then nothing can be told, and only a debug line says so.
 */
export async function checkRedisSettings(
  client: Pick<RedisClientType, 'configGet'>,
  log: Logger,
  allowEviction = false,
): Promise<string | undefined> {
  let settings: Record<string, string>;
  try {
    settings = {
      ...(await client.configGet('maxmemory-policy')),
      ...(await client.configGet('appendonly')),
      ...(await client.configGet('save')),
    };
  } catch (error) {
    log.debug('store.redis_settings_unread', { error });
    return undefined;
  }
  const policy = settings['maxmemory-policy'];
  if (policy !== undefined && policy !== SAFE_POLICY) {
    if (!allowEviction) throw new RedisEvictsError(policy);
    log.warn('store.redis_evicts', {
      maxmemory_policy: policy,
      message: `Redis may evict the app's keys (maxmemory-policy ${policy}), allowed by REDIS_ALLOW_EVICTION: running jobs can lose their tracking. Set maxmemory-policy ${SAFE_POLICY} (docs/operating.md#redis).`,
    });
  }
  if (settings.appendonly === 'no' && !settings.save) {
    log.warn('store.redis_not_persistent', {
      message:
        'Redis keeps nothing across a restart (appendonly no, no save points): a restart loses running jobs’ tracking. Turn on AOF (appendonly yes) or RDB snapshots (docs/operating.md#redis).',
    });
  }
  return policy;
}

/** How often maxmemory-policy is read again while the app runs. */
const POLICY_EVERY_MS = 60_000;

/**
 * Reads maxmemory-policy again every minute: an operator may change it while the app runs (CONFIG SET), which no
 * start then refuses. A change to a policy that evicts is logged `store.redis_evicts` (error; warn when
 * REDIS_ALLOW_EVICTION), and back to noeviction `store.redis_no_eviction` (info). `policy` is the one read at start.
 */
export function watchEvictionPolicy(
  client: Pick<RedisClientType, 'configGet'>,
  log: Logger,
  {
    policy,
    allowEviction = false,
    everyMs = POLICY_EVERY_MS,
  }: { policy: string; allowEviction?: boolean; everyMs?: number },
): () => void {
  let seen = policy;
  let reading = false;
  const read = async () => {
    if (reading) return;
    reading = true;
    try {
      const now = (await client.configGet('maxmemory-policy'))['maxmemory-policy'];
      if (now === undefined || now === seen) return;
      seen = now;
      if (now === SAFE_POLICY) return log.info('store.redis_no_eviction', { maxmemory_policy: now });
      (allowEviction ? log.warn : log.error)('store.redis_evicts', {
        maxmemory_policy: now,
        message: `Redis' maxmemory-policy was changed to ${now} while the app runs: under memory pressure running jobs lose their tracking and outcomes are never posted. Run CONFIG SET maxmemory-policy ${SAFE_POLICY} (docs/operating.md#redis).`,
      });
    } catch {
      // a Redis that does not answer is the health check's to report; the next read tries again.
    } finally {
      reading = false;
    }
  };
  const timer = setInterval(() => void read(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** host:port/db without credentials, for messages. */
export function describeRedisUrl(redisUrl: string): string {
  const url = new URL(redisUrl);
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}
