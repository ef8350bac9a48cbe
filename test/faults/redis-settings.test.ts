import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/store.js';
import { captureLogs } from '../support/logs.js';
import { redisServerAvailable, useRedisServer } from './support.js';

// Issue 20: the app needs a Redis that keeps its data and never evicts its keys; start-up says so when it does not.
// A managed Redis may refuse CONFIG GET: then nothing can be told, and nothing is said above debug.

describe.skipIf(!redisServerAvailable)('Redis settings checked at start', () => {
  const redis = useRedisServer(); // started with no save points and appendonly no

  const events = async (url: string) => {
    const logs = captureLogs();
    const store = await createStore({ redisUrl: url, log: logs.log });
    await store.close();
    return logs.lines.map((line) => JSON.parse(line) as { level: string; event: string; message?: string });
  };

  it('warns when Redis may evict keys or keeps nothing across a restart', async () => {
    await redis().command(['CONFIG', 'SET', 'maxmemory-policy', 'volatile-lru']);
    const seen = await events(redis().url);
    expect(seen.find((e) => e.event === 'store.redis_evicts')).toMatchObject({
      level: 'warn',
      message: expect.stringContaining('maxmemory-policy noeviction'),
    });
    expect(seen.find((e) => e.event === 'store.redis_not_persistent')).toMatchObject({ level: 'warn' });
  });

  it('says nothing when Redis keeps its data and never evicts', async () => {
    await redis().command(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
    await redis().command(['CONFIG', 'SET', 'appendonly', 'yes']);
    const seen = await events(redis().url);
    expect(seen.filter((e) => e.level === 'warn' || e.level === 'error')).toEqual([]);
  });

  it('a Redis that refuses CONFIG GET (managed) gets a debug line only', async () => {
    await redis().command(['ACL', 'SETUSER', 'app', 'on', '>apppw', '~*', '&*', '+@all', '-config']);
    const { port } = redis();
    const seen = await events(`redis://app:apppw@127.0.0.1:${port}`);
    expect(seen.filter((e) => e.level === 'warn' || e.level === 'error')).toEqual([]);
    expect(seen.find((e) => e.event === 'store.redis_settings_unread')).toMatchObject({ level: 'debug' });
  });
});
