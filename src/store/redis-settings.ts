import type { RedisClientType } from '@keyv/redis';
import type { Logger } from '../log.js';

/**
 * What the app needs of its Redis: it keeps its data (AOF or RDB snapshots) and never evicts a key
 * (`maxmemory-policy noeviction`): an evicted record or a restart without data loses running jobs' tracking.
 * A managed Redis may refuse CONFIG GET; then nothing can be told, and only a debug line says so.
 */
export async function checkRedisSettings(client: Pick<RedisClientType, 'configGet'>, log: Logger): Promise<void> {
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
  if (policy !== undefined && policy !== 'noeviction') {
    log.warn('store.redis_evicts', {
      maxmemory_policy: policy,
      message: `Redis may evict the app's keys (maxmemory-policy ${policy}): running jobs can lose their tracking. Set maxmemory-policy noeviction (docs/operating.md#redis).`,
    });
  }
  if (settings.appendonly === 'no' && !settings.save) {
    log.warn('store.redis_not_persistent', {
      message:
        'Redis keeps nothing across a restart (appendonly no, no save points): a restart loses running jobs’ tracking. Turn on AOF (appendonly yes) or RDB snapshots (docs/operating.md#redis).',
    });
  }
}
