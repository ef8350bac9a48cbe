import { createClient } from '@keyv/redis';
import { afterEach, describe, expect, it } from 'vitest';
import { CorruptJobError } from '../../src/store/jobs.js';
import { createStore, describeRedisUrl, type Store, StoreUnavailableError } from '../../src/store/store.js';
import { captureLogs } from '../support/logs.js';
import { dropNamespace, redisAvailable, TEST_REDIS_URL, testNamespace } from '../support/redis.js';
import { binding } from './job-store-contract.js';
import { storeContract } from './store-contract.js';

const PASSWORD = 's3cretpw';

describe.skipIf(!redisAvailable)('redis store', () => {
  storeContract({
    create: (namespace) => createStore({ redisUrl: TEST_REDIS_URL, namespace, log: captureLogs().log }),
    dispose: dropNamespace,
  });

  describe('shared by replicas', () => {
    const namespace = testNamespace();
    const opened: Store[] = [];
    const replica = async () => {
      const store = await createStore({ redisUrl: TEST_REDIS_URL, namespace, log: captureLogs().log });
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
      await dropNamespace(namespace);
    });

    it('two stores on one namespace see each other’s claims', async () => {
      const [a, b] = [await replica(), await replica()];
      expect(await a.claims.claim('job:1', 'replica-a', 10_000)).toBe(true);
      expect(await b.claims.claim('job:1', 'replica-b', 10_000)).toBe(false);
      expect(await b.claims.renew('job:1', 'replica-b', 10_000)).toBe(false);
      await a.claims.release('job:1', 'replica-a');
      expect(await b.claims.claim('job:1', 'replica-b', 10_000)).toBe(true);
    });

    it('exactly one of many replicas racing for a key wins', async () => {
      const replicas = await Promise.all(Array.from({ length: 5 }, () => replica()));
      const wins = await Promise.all(replicas.map((r, i) => r.claims.claim('job:race', `replica-${i}`, 10_000)));
      expect(wins.filter(Boolean)).toHaveLength(1);
    });

    it('two stores on one namespace share kv values, budgets and jobs', async () => {
      const [a, b] = [await replica(), await replica()];
      await a.kv.set('binding', { channel: 'C1' });
      expect(await b.kv.get('binding')).toEqual({ channel: 'C1' });
      const quota = { name: 'quota', points: 100, durationMs: 60_000 };
      await a.budget(quota).take('proj_a');
      expect((await b.budget(quota).take('proj_a')).used).toBe(2);
      await a.jobs.create(binding(), { status: 'active' }, 1);
      await b.jobs.startRound(binding(), 2);
      expect(await a.jobs.get({ project: 'proj_a', jobId: 'job-1' })).toMatchObject({ round: 1 });
      expect(await b.jobs.active('proj_a')).toEqual(['job-1']);
    });

    it('a store opened later (a restart) finds what the first one left', async () => {
      const first = await replica();
      await first.kv.set('binding', 'kept');
      await first.jobs.create(binding(), { status: 'active' }, 1);
      await first.close();
      const second = await replica();
      expect(await second.kv.get('binding')).toBe('kept');
      expect(await second.jobs.active('proj_a')).toEqual(['job-1']);
      expect(await second.jobs.forThread(['proj_a'], 'C1', binding().threadTs)).toEqual({
        project: 'proj_a',
        jobId: 'job-1',
      });
    });

    it('refuses work after close instead of quietly reconnecting', async () => {
      const store = await replica();
      await store.close();
      await expect(store.kv.get('binding')).rejects.toThrow();
      await expect(store.claims.claim('k', 'owner', 1_000)).rejects.toThrow();
      await expect(store.jobs.active('proj_a')).rejects.toThrow();
    });

    it('reports a record that does not match its schema instead of reading it as no job', async () => {
      const store = await replica();
      await store.jobs.create(binding(), { status: 'active' }, 1);
      const client = createClient({ url: TEST_REDIS_URL });
      await client.connect();
      try {
        await client.hSet(`${namespace}:job:proj_a:job-1`, 'round', 'many');
      } finally {
        await client.close();
      }
      const error = await store.jobs.get({ project: 'proj_a', jobId: 'job-1' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorruptJobError);
      expect((error as Error).message).toContain('round');
    });

    it('keeps every key under its namespace', async () => {
      const store = await replica();
      expect(store.kind).toBe('redis');
      await store.kv.set('binding', 'v');
      await store.claims.claim('job:1', 'owner', 10_000);
      await store.jobs.create(binding(), { status: 'active' }, 1);
      await store.budget({ name: 'quota', points: 100, durationMs: 60_000 }).take('proj_a');
      const client = createClient({ url: TEST_REDIS_URL });
      await client.connect();
      try {
        const keys: string[] = [];
        for await (const batch of client.scanIterator({ MATCH: `*${namespace}*`, COUNT: 500 })) keys.push(...batch);
        expect(keys.length).toBeGreaterThanOrEqual(6);
        for (const key of keys) expect(key.startsWith(`${namespace}:`)).toBe(true);
      } finally {
        await client.close();
      }
    });
  });

  it('reports a wrong password at once, without the password', async () => {
    const url = new URL(TEST_REDIS_URL);
    url.username = 'nobody-here';
    url.password = PASSWORD;
    const started = Date.now();
    const error = await createStore({ redisUrl: url.href, log: captureLogs().log }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain(`${url.hostname}:${url.port || 6379}`);
    expect((error as Error).message).not.toContain(PASSWORD);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('redis store, unreachable', () => {
  it('fails fast with StoreUnavailableError naming host:port and not the password', async () => {
    const captured = captureLogs();
    const started = Date.now();
    const error = await createStore({ redisUrl: `redis://user:${PASSWORD}@127.0.0.1:1`, log: captured.log }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    const { message } = error as Error;
    expect(message).toContain('127.0.0.1:1');
    expect(message).toContain('REDIS_URL');
    expect(message).toMatch(/ECONNREFUSED/);
    expect(message).not.toContain(PASSWORD);
    expect(message).not.toContain('user:');
    expect(captured.text()).not.toContain(PASSWORD);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('describeRedisUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['redis://user:pw@cache.internal:6380/2', 'redis://cache.internal:6380/2'],
    ['rediss://:pw@cache.internal', 'rediss://cache.internal'],
  ])('describes %s as %s, without credentials', (url, expected) => {
    expect(describeRedisUrl(url)).toBe(expected);
  });
});
