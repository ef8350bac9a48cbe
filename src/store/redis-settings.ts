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
): Promise<void> {
  let settings: Record<string, string>;
  try {
    settings = {
      ...(await client.configGet('maxmemory-policy')),
      ...(await client.configGet('appendonly')),
      ...(await client.configGet('save')),
    };
  } catch (error) {
    log.debug('store.redis_settings_unread', { error });
    return;
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
}

/** host:port/db without credentials, for messages. */
export function describeRedisUrl(redisUrl: string): string {
  const url = new URL(redisUrl);
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}
