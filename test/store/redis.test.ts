import { createClient } from '@keyv/redis';
import { afterEach, describe, expect, it } from 'vitest';
import { CorruptJobError, RECORD_TTL_MS } from '../../src/store/jobs.js';
import { describeRedisUrl } from '../../src/store/redis-settings.js';
import { createStore, type Store, StoreUnavailableError } from '../../src/store/store.js';
import { captureLogs } from '../support/logs.js';
import { dropNamespace, redisAvailable, TEST_REDIS_URL, testNamespace } from '../support/redis.js';
import { type Connect, expectUnreachableRefused, expectWrongPasswordRefused } from '../support/redis-refusals.js';
import { binding } from './job-store-contract.js';
import { storeContract } from './store-contract.js';

const connect: Connect = (redisUrl, log) => createStore({ redisUrl, log });

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

    it('gives the active index the records’ TTL, so an eviction policy or the TTL removes them together', async () => {
      const store = await replica();
      await store.jobs.create(binding(), { status: 'active' }, 1);
      await store.jobs.startRound(binding(), 2);
      const client = createClient({ url: TEST_REDIS_URL });
      await client.connect();
      try {
        const [record, index] = await Promise.all(
          [`${namespace}:job:proj_a:job-1`, `${namespace}:active:proj_a`].map((key) => client.pTTL(key)),
        );
        expect(record).toBeGreaterThan(RECORD_TTL_MS - 60_000);
        expect(Math.abs(Number(index) - Number(record))).toBeLessThan(60_000);
      } finally {
        await client.close();
      }
    });

    /** Writes a kv value, a claim, a job and a budget use through `store`. */
    async function useEverything(store: Store) {
      await store.kv.set('binding', 'v');
      await store.claims.claim('job:1', 'owner', 10_000);
      await store.jobs.create(binding(), { status: 'active' }, 1);
      await store.budget({ name: 'quota', points: 100, durationMs: 60_000 }).take('proj_a');
    }

    /** Every key in Redis that names the namespace. */
    async function keysNamingNamespace(): Promise<string[]> {
      const client = createClient({ url: TEST_REDIS_URL });
      await client.connect();
      const keys: string[] = [];
      try {
        for await (const batch of client.scanIterator({ MATCH: `*${namespace}*`, COUNT: 500 })) keys.push(...batch);
      } finally {
        await client.close();
      }
      return keys;
    }

    it('keeps every key under its namespace', async () => {
      const store = await replica();
      expect(store.kind).toBe('redis');
      await useEverything(store);
      const keys = await keysNamingNamespace();
      expect(keys.length).toBeGreaterThanOrEqual(6);
      for (const key of keys) expect(key.startsWith(`${namespace}:`)).toBe(true);
    });

    it('keeps every key of a scope under `<namespace>:ws:<scope>:`, and a replica sees the scope', async () => {
      const [store, other] = [await replica(), await replica()];
      await useEverything(store.scoped('T1ACME'));
      expect(await other.scoped('T1ACME').kv.get('binding')).toBe('v');
      expect(await other.scoped('T1ACME').jobs.active('proj_a')).toEqual(['job-1']);
      const keys = await keysNamingNamespace();
      expect(keys.length).toBeGreaterThanOrEqual(6);
      for (const key of keys) expect(key.startsWith(`${namespace}:ws:T1ACME:`), key).toBe(true);
    });
  });

  it('reports a wrong password at once, without the password', async () => {
    await expectWrongPasswordRefused(connect, StoreUnavailableError, 2_000);
  });
});

describe('redis store, unreachable', () => {
  it('fails fast with StoreUnavailableError naming host:port and not the password', async () => {
    const message = await expectUnreachableRefused(connect, StoreUnavailableError);
    expect(message).toContain('REDIS_URL');
    expect(message).not.toContain('user:');
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

describe.skipIf(!redisAvailable)('redis store, state written by version 0.1', () => {
  const namespace = testNamespace();
  afterEach(() => dropNamespace(namespace));

  it('moves jobs kept without a project to the project that version served, once, tracking the active ones', async () => {
    const log = captureLogs();
    // What 0.1 wrote: Keyv values under the namespace, an `active-jobs` set, a `posted:` mark.
    const old = await createStore({ redisUrl: TEST_REDIS_URL, namespace, log: log.log });
    const legacy = (jobId: string, threadTs: string, ended: string | null) => ({
      jobId,
      channel: 'C1',
      threadTs,
      userId: 'U1',
      prompt: `legacy ${jobId}`,
      status: ended ? 'completed' : 'active',
      ended,
      repository: 'https://github.com/acme/docs',
      ref: null,
      model: 'm',
      prLink: ended ? 'https://github.com/acme/docs/pull/1' : null,
      round: 1,
      createdAtMs: 1,
      roundStartedAtMs: 2,
    });
    await old.kv.set('job:job-live', legacy('job-live', '1.1', null), 60_000);
    await old.kv.set('thread:C1:1.1', 'job-live', 60_000);
    await old.kv.set('job:job-done', legacy('job-done', '2.2', 'pull_request'), 60_000);
    await old.kv.set('thread:C1:2.2', 'job-done', 60_000);
    await old.kv.set('posted:job-live:1', true, 60_000);
    const client = createClient({ url: TEST_REDIS_URL });
    await client.connect();
    await client.sAdd(`${namespace}:active-jobs`, ['job-live', 'job-done']);
    await old.close();

    const store = await createStore({ redisUrl: TEST_REDIS_URL, namespace, log: log.log, legacyProject: 'proj_v1' });
    try {
      expect(await store.jobs.active('proj_v1')).toEqual(['job-live']);
      expect(await store.jobs.forThread(['proj_v1'], 'C1', '2.2')).toEqual({ project: 'proj_v1', jobId: 'job-done' });
      expect(await store.jobs.get({ project: 'proj_v1', jobId: 'job-live' })).toMatchObject({
        round: 1,
        ended: null,
        statusTs: '1.1',
        attempt: 1, // its outcome was marked posted: the poster reads the thread before posting again
      });
      // Marked without the time it began: the poster reads the whole thread.
      const marked = { project: 'proj_v1', jobId: 'job-live' };
      expect(await store.jobs.beginPost(marked, 1, 5)).toEqual({ ok: true, earlierAttempt: true, atMs: undefined });
      expect(await store.jobs.get({ project: 'proj_v1', jobId: 'job-done' })).toMatchObject({
        ended: 'pull_request',
        prLink: 'https://github.com/acme/docs/pull/1',
      });
      expect(await client.exists(`${namespace}:active-jobs`)).toBe(0);
      expect(log.text()).toContain('"event":"store.migrated"');

      // A second start changes nothing.
      const live = await store.jobs.get({ project: 'proj_v1', jobId: 'job-live' });
      if (live) await store.jobs.startRound(live, 5);
      const again = await createStore({ redisUrl: TEST_REDIS_URL, namespace, log: log.log, legacyProject: 'proj_v1' });
      expect((await again.jobs.get({ project: 'proj_v1', jobId: 'job-live' }))?.round).toBe(2);
      await again.close();
    } finally {
      await store.close();
      await client.close();
    }
  });
});
