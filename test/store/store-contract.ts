import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';

/** Makes a store on `namespace`; the contract closes it. `dispose` (optional) cleans up after the test. */
export interface StoreFactory {
  create(namespace: string): Promise<Store>;
  dispose?(namespace: string): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Short enough to keep the suite fast, long enough for a round trip to Redis on a busy box. */
const SHORT_TTL_MS = 150;
const PAST_SHORT_TTL_MS = 300;

let counter = 0;
const uniqueNamespace = () => `contract-${process.pid}-${Date.now().toString(36)}-${counter++}`;

/**
 * The behaviour every Store must have, whatever is behind it (in the spirit of @keyv/test-suite).
 * Each test gets a fresh namespace, so state never leaks between tests or runs.
 */
export function storeContract(factory: StoreFactory): void {
  let namespace: string;
  let store: Store;
  const opened: Store[] = [];
  /** A second store on the same namespace: what another replica (or a restarted process) sees. */
  const another = async (ns = namespace) => {
    const next = await factory.create(ns);
    opened.push(next);
    return next;
  };

  beforeEach(async () => {
    namespace = uniqueNamespace();
    store = await another();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await factory.dispose?.(namespace);
  });

  describe('kv', () => {
    it('gets what was set, of any JSON shape', async () => {
      const value = { channel: 'C1', ts: '1700000000.000100', nested: { n: 1, list: [1, 'two', null] } };
      await store.kv.set('binding', value);
      await store.kv.set('count', 42);
      await store.kv.set('flag', false);
      expect(await store.kv.get('binding')).toEqual(value);
      expect(await store.kv.get('count')).toBe(42);
      expect(await store.kv.get('flag')).toBe(false);
    });

    it('gives undefined for a key never set', async () => {
      expect(await store.kv.get('nothing-here')).toBeUndefined();
    });

    it('overwrites on set', async () => {
      await store.kv.set('k', 'one');
      await store.kv.set('k', 'two');
      expect(await store.kv.get('k')).toBe('two');
    });

    it('deletes, reporting whether the key existed', async () => {
      await store.kv.set('k', 'v');
      expect(await store.kv.delete('k')).toBe(true);
      expect(await store.kv.get('k')).toBeUndefined();
      expect(await store.kv.delete('k')).toBe(false);
    });

    it('forgets a value after its TTL, and keeps one without TTL', async () => {
      await store.kv.set('short', 'v', SHORT_TTL_MS);
      await store.kv.set('forever', 'v');
      expect(await store.kv.get('short')).toBe('v');
      await sleep(PAST_SHORT_TTL_MS);
      expect(await store.kv.get('short')).toBeUndefined();
      expect(await store.kv.get('forever')).toBe('v');
    });

    // Claims, counters and sets share one key space on Redis (callers give them distinct names); kv is apart.
    it('keeps kv keys apart from claim, counter and set keys of the same name', async () => {
      await Promise.all(['lease', 'count', 'set'].map((key) => store.kv.set(key, `kv ${key}`)));
      expect(await store.claims.claim('lease', 'owner', 10_000)).toBe(true);
      expect((await store.claims.increment('count', 10_000)).count).toBe(1);
      await store.claims.addMember('set', 'member');
      expect(await Promise.all(['lease', 'count', 'set'].map((key) => store.kv.get(key)))).toEqual([
        'kv lease',
        'kv count',
        'kv set',
      ]);
      expect(await store.claims.renew('lease', 'owner', 10_000)).toBe(true);
      expect(await store.claims.members('set')).toEqual(['member']);
    });
  });

  describe('claims', () => {
    it('gives a free key to exactly one of two owners', async () => {
      const results = await Promise.all([
        store.claims.claim('job:1', 'owner-a', 10_000),
        store.claims.claim('job:1', 'owner-b', 10_000),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('refuses a held key, even to its holder', async () => {
      expect(await store.claims.claim('job:1', 'owner-a', 10_000)).toBe(true);
      expect(await store.claims.claim('job:1', 'owner-b', 10_000)).toBe(false);
      expect(await store.claims.claim('job:1', 'owner-a', 10_000)).toBe(false);
    });

    it('claims different keys independently', async () => {
      expect(await store.claims.claim('job:1', 'owner-a', 10_000)).toBe(true);
      expect(await store.claims.claim('job:2', 'owner-b', 10_000)).toBe(true);
    });

    it('frees a claim after its TTL', async () => {
      expect(await store.claims.claim('job:1', 'owner-a', SHORT_TTL_MS)).toBe(true);
      await sleep(PAST_SHORT_TTL_MS);
      expect(await store.claims.claim('job:1', 'owner-b', 10_000)).toBe(true);
    });

    it('renews for the holder, extending the hold past the original TTL', async () => {
      expect(await store.claims.claim('job:1', 'owner-a', SHORT_TTL_MS)).toBe(true);
      expect(await store.claims.renew('job:1', 'owner-a', 10_000)).toBe(true);
      await sleep(PAST_SHORT_TTL_MS);
      expect(await store.claims.claim('job:1', 'owner-b', 10_000)).toBe(false);
    });

    it('refuses to renew for anyone but the holder', async () => {
      expect(await store.claims.claim('job:1', 'owner-a', 10_000)).toBe(true);
      expect(await store.claims.renew('job:1', 'owner-b', 10_000)).toBe(false);
      expect(await store.claims.claim('job:1', 'owner-b', 10_000)).toBe(false);
    });

    it('renew takes a free key (never claimed, or expired)', async () => {
      expect(await store.claims.renew('job:1', 'owner-b', 10_000)).toBe(true);
      expect(await store.claims.claim('job:1', 'owner-a', 10_000)).toBe(false);

      expect(await store.claims.claim('job:2', 'owner-a', SHORT_TTL_MS)).toBe(true);
      await sleep(PAST_SHORT_TTL_MS);
      expect(await store.claims.renew('job:2', 'owner-b', 10_000)).toBe(true);
      expect(await store.claims.renew('job:2', 'owner-a', 10_000)).toBe(false);
    });

    it('releases only for the holder', async () => {
      expect(await store.claims.claim('job:1', 'owner-a', 10_000)).toBe(true);
      await store.claims.release('job:1', 'owner-b');
      expect(await store.claims.claim('job:1', 'owner-b', 10_000)).toBe(false);
      await store.claims.release('job:1', 'owner-a');
      expect(await store.claims.claim('job:1', 'owner-b', 10_000)).toBe(true);
    });

    it('releasing a key nobody holds is harmless', async () => {
      await expect(store.claims.release('never-claimed', 'owner-a')).resolves.toBeUndefined();
    });
  });

  describe('counters', () => {
    it('counts increments within the window', async () => {
      const counts = [];
      for (let i = 0; i < 3; i++) counts.push(await store.claims.increment('rate:U1', 10_000));
      expect(counts.map((c) => c.count)).toEqual([1, 2, 3]);
      for (const { resetInMs } of counts) {
        expect(resetInMs).toBeGreaterThan(0);
        expect(resetInMs).toBeLessThanOrEqual(10_000);
      }
    });

    it('keeps the window from the first increment (later increments do not extend it)', async () => {
      await store.claims.increment('rate:U1', 1_000);
      await sleep(200);
      const { resetInMs } = await store.claims.increment('rate:U1', 1_000);
      expect(resetInMs).toBeLessThanOrEqual(850);
    });

    it('starts again from one after the window', async () => {
      await store.claims.increment('rate:U1', SHORT_TTL_MS);
      await store.claims.increment('rate:U1', SHORT_TTL_MS);
      await sleep(PAST_SHORT_TTL_MS);
      expect((await store.claims.increment('rate:U1', 10_000)).count).toBe(1);
    });

    it('counts keys separately', async () => {
      await store.claims.increment('rate:U1', 10_000);
      await store.claims.increment('rate:U1', 10_000);
      expect((await store.claims.increment('rate:U2', 10_000)).count).toBe(1);
    });

    it('peeks without counting', async () => {
      expect(await store.claims.peek('rate:U1')).toEqual({ count: 0, resetInMs: 0 });
      await store.claims.increment('rate:U1', 10_000);
      await store.claims.increment('rate:U1', 10_000);
      const first = await store.claims.peek('rate:U1');
      const second = await store.claims.peek('rate:U1');
      expect(first.count).toBe(2);
      expect(second.count).toBe(2);
      expect(first.resetInMs).toBeGreaterThan(0);
      expect(first.resetInMs).toBeLessThanOrEqual(10_000);
    });

    it('peeks zero once the window is over', async () => {
      await store.claims.increment('rate:U1', SHORT_TTL_MS);
      await sleep(PAST_SHORT_TTL_MS);
      expect(await store.claims.peek('rate:U1')).toEqual({ count: 0, resetInMs: 0 });
    });
  });

  describe('sets', () => {
    it('adds members once each and lists them', async () => {
      await store.claims.addMember('active', 'job-1');
      await store.claims.addMember('active', 'job-2');
      await store.claims.addMember('active', 'job-1');
      expect((await store.claims.members('active')).sort()).toEqual(['job-1', 'job-2']);
    });

    it('removes members', async () => {
      await store.claims.addMember('active', 'job-1');
      await store.claims.addMember('active', 'job-2');
      await store.claims.removeMember('active', 'job-1');
      expect(await store.claims.members('active')).toEqual(['job-2']);
      await store.claims.removeMember('active', 'job-2');
      expect(await store.claims.members('active')).toEqual([]);
    });

    it('lists nothing for an unknown set, and removing from it is harmless', async () => {
      await store.claims.removeMember('unknown', 'job-1');
      expect(await store.claims.members('unknown')).toEqual([]);
    });

    it('keeps sets apart', async () => {
      await store.claims.addMember('a', 'x');
      await store.claims.addMember('b', 'y');
      expect(await store.claims.members('a')).toEqual(['x']);
      expect(await store.claims.members('b')).toEqual(['y']);
    });
  });

  describe('namespaces', () => {
    it('isolates stores on different namespaces', async () => {
      const other = await another(`${namespace}-other`);
      try {
        await store.kv.set('k', 'mine');
        expect(await store.claims.claim('job:1', 'owner-a', 10_000)).toBe(true);
        await store.claims.addMember('active', 'job-1');
        await store.claims.increment('rate:U1', 10_000);

        expect(await other.kv.get('k')).toBeUndefined();
        expect(await other.claims.claim('job:1', 'owner-b', 10_000)).toBe(true);
        expect(await other.claims.members('active')).toEqual([]);
        expect((await other.claims.peek('rate:U1')).count).toBe(0);
      } finally {
        await factory.dispose?.(`${namespace}-other`);
      }
    });
  });
}
