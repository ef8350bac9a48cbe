import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/store.js';
import { runEntryPoint } from '../support/app-process.js';
import { captureLogs } from '../support/logs.js';
import { eventually } from '../support/wait.js';
import { redisServerAvailable, useRedisServer } from './support.js';

// Issue 20: the app needs a Redis that keeps its data and never evicts its keys; start-up says so when it does not.
// Issue 30 (7): a Redis that may evict (any maxmemory-policy but noeviction: volatile-* evicts job records, which
// carry a TTL) is refused at start, unless the operator opts in with REDIS_ALLOW_EVICTION=true.
// A managed Redis may refuse CONFIG GET: then nothing can be told, and nothing is said above debug.

describe.skipIf(!redisServerAvailable)('Redis settings checked at start', () => {
  const redis = useRedisServer(); // started with no save points and appendonly no

  const events = async (url: string, allowEviction = false) => {
    const logs = captureLogs();
    const store = await createStore({ redisUrl: url, log: logs.log, allowEviction });
    await store.close();
    return logs.lines.map((line) => JSON.parse(line) as { level: string; event: string; message?: string });
  };

  it.each(['allkeys-lru', 'volatile-lru', 'allkeys-random', 'volatile-ttl'])(
    'refuses a Redis whose maxmemory-policy is %s, naming the setting, the safe value and the opt-in',
    async (policy) => {
      await redis().command(['CONFIG', 'SET', 'maxmemory-policy', policy]);
      const opened = createStore({ redisUrl: redis().url, log: captureLogs().log });
      await expect(opened).rejects.toThrow(`maxmemory-policy ${policy}`);
      await expect(opened).rejects.toThrow(/set maxmemory-policy noeviction.*REDIS_ALLOW_EVICTION=true/s);
    },
  );

  it('the real entry point exits at start on allkeys-lru, saying why on its log', { timeout: 60_000 }, async () => {
    await redis().command(['CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru']);
    const exit = await runEntryPoint({
      SLACK_BOT_TOKEN: 'xoxb-settings-test',
      SLACK_SIGNING_SECRET: 'settings-test-secret',
      MINTLIFY_API_KEY: 'mint_settings_test_key',
      MINTLIFY_PROJECT_ID: 'proj_settings',
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
      MINTLIFY_API_URL: 'http://127.0.0.1:9',
      REDIS_URL: redis().url,
      PORT: '0',
      METRICS_PORT: '0',
    });
    expect(exit.code, exit.stdout + exit.stderr).toBe(1);
    expect(exit.stdout + exit.stderr).toContain('maxmemory-policy allkeys-lru');
    expect(exit.stdout + exit.stderr).not.toContain('app.started');
  });

  it('with REDIS_ALLOW_EVICTION the operator opted in: it starts, and warns that keys may be evicted', async () => {
    await redis().command(['CONFIG', 'SET', 'maxmemory-policy', 'volatile-lru']);
    const seen = await events(redis().url, true);
    expect(seen.find((e) => e.event === 'store.redis_evicts')).toMatchObject({
      level: 'warn',
      message: expect.stringContaining('maxmemory-policy noeviction'),
    });
    expect(seen.find((e) => e.event === 'store.redis_not_persistent')).toMatchObject({ level: 'warn' });
  });

  it('a policy changed to one that evicts while the app runs is logged at error, once; back to noeviction at info', async () => {
    await redis().command(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
    const logs = captureLogs();
    const store = await createStore({ redisUrl: redis().url, log: logs.log, settingsEveryMs: 50 });
    const seen = (event: string) =>
      logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.event === event);
    try {
      await redis().command(['CONFIG', 'SET', 'maxmemory-policy', 'volatile-lru']);
      await eventually(() => seen('store.redis_evicts').length > 0, 3_000, 'the change logged');
      expect(seen('store.redis_evicts')[0]).toMatchObject({
        level: 'error',
        maxmemory_policy: 'volatile-lru',
        message: expect.stringContaining('CONFIG SET maxmemory-policy noeviction'),
      });
      await redis().command(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
      await eventually(() => seen('store.redis_no_eviction').length > 0, 3_000, 'the way back logged');
      expect(seen('store.redis_evicts')).toHaveLength(1);
    } finally {
      await store.close();
    }
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
