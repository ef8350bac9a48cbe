import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { binding, jobStoreContract } from './job-store-contract.js';

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

  /** Budgets of the store under test; a minute-long window so nothing refills during a test. */
  const budget = (points = 100, name = 'quota') => store.budget({ name, points, durationMs: 60_000 });

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

    // Claims, jobs and budgets share one key space on Redis (callers give them distinct names); kv is apart.
    it('keeps kv keys apart from claim, job and budget keys of the same name', async () => {
      await Promise.all(['lease', 'count', 'job'].map((key) => store.kv.set(key, `kv ${key}`)));
      expect(await store.claims.claim('lease', 'owner', 10_000)).toBe(true);
      expect((await budget().take('count')).used).toBe(1);
      await store.jobs.create(binding({ jobId: 'job' }), { status: 'active' }, 1);
      expect(await Promise.all(['lease', 'count', 'job'].map((key) => store.kv.get(key)))).toEqual([
        'kv lease',
        'kv count',
        'kv job',
      ]);
      expect(await store.claims.renew('lease', 'owner', 10_000)).toBe(true);
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

  describe('budgets', () => {
    it('takes uses until the budget is spent, then refuses and says when it refills', async () => {
      const uses = [];
      for (let i = 0; i < 4; i++) uses.push(await budget(3).take('proj'));
      expect(uses.map((u) => [u.ok, u.used, u.left])).toEqual([
        [true, 1, 2],
        [true, 2, 1],
        [true, 3, 0],
        [false, 3, 0],
      ]);
      expect(uses[3]?.resetInMs).toBeGreaterThan(50_000);
      expect(uses[3]?.resetInMs).toBeLessThanOrEqual(60_000);
    });

    it('takes nothing for a refused use: a use given back after it reopens one slot', async () => {
      const b = budget(2);
      await b.take('p');
      await b.take('p');
      expect((await b.take('p')).ok).toBe(false);
      expect((await b.take('p')).ok).toBe(false);
      await b.refund('p');
      expect(await b.take('p')).toMatchObject({ ok: true, used: 2, left: 0 });
      expect((await b.take('p')).ok).toBe(false);
    });

    it('keeps keys and budgets apart', async () => {
      await budget(3).take('a');
      await budget(3).take('a');
      expect((await budget(3).take('b')).used).toBe(1);
      expect((await budget(3, 'other').take('a')).used).toBe(1);
    });

    it('peeks without taking, and gives a refunded use back', async () => {
      expect(await budget(3).peek('proj')).toEqual({ ok: true, used: 0, left: 3, resetInMs: 0 });
      await budget(3).take('proj');
      await budget(3).take('proj');
      expect((await budget(3).peek('proj')).used).toBe(2);
      expect((await budget(3).peek('proj')).used).toBe(2);
      await budget(3).refund('proj');
      expect((await budget(3).peek('proj')).left).toBe(2);
    });
  });

  describe('sliding budgets (how Slack counts its tiers)', () => {
    const WINDOW_MS = 1_000;
    const sliding = (points: number) => store.budget({ name: 'tier', points, durationMs: WINDOW_MS, sliding: true });

    it('let a burst of the whole budget through at once, then refuse until its first use leaves the window', async () => {
      const uses = [];
      for (let i = 0; i < 4; i++) uses.push(await sliding(3).take('T1'));
      expect(uses.map((u) => [u.ok, u.used, u.left])).toEqual([
        [true, 1, 2],
        [true, 2, 1],
        [true, 3, 0],
        [false, 3, 0],
      ]);
      expect(uses[3]?.resetInMs).toBeGreaterThan(WINDOW_MS / 2);
      expect(uses[3]?.resetInMs).toBeLessThanOrEqual(WINDOW_MS);
      expect((await sliding(3).take('T2')).ok).toBe(true); // each key its own
    });

    it('free each use a window after it was taken, not all at a window’s end', async () => {
      await sliding(3).take('T1');
      await sliding(3).take('T1');
      await sleep(WINDOW_MS / 2);
      expect((await sliding(3).take('T1')).ok).toBe(true);
      const full = await sliding(3).take('T1');
      expect(full.ok).toBe(false);
      expect(full.resetInMs).toBeLessThanOrEqual(WINDOW_MS / 2);
      await sleep(WINDOW_MS / 2 + 250);
      // The first two left; the third still counts (a fixed window would have emptied).
      expect(await sliding(3).peek('T1')).toMatchObject({ ok: true, used: 1, left: 2 });
    });

    it('count a touched use from its touch (the call it paid for ended then)', async () => {
      const use = await sliding(1).take('T1');
      expect(use.id).toEqual(expect.any(String));
      await sleep(WINDOW_MS / 2);
      await sliding(1).touch?.('T1', use.id as string);
      await sleep(WINDOW_MS / 2 + 250);
      expect(await sliding(1).peek('T1')).toMatchObject({ ok: false, used: 1 });
      await sleep(WINDOW_MS / 2);
      expect(await sliding(1).peek('T1')).toMatchObject({ ok: true, used: 0 });
    });

    it('hold every use of a key for a while (the service said to wait), other keys as they were', async () => {
      await sliding(3).hold?.('T1', WINDOW_MS / 2);
      const held = await sliding(3).take('T1');
      expect(held).toMatchObject({ ok: false, used: 0 });
      expect(held.resetInMs).toBeGreaterThan(WINDOW_MS / 4);
      expect(held.resetInMs).toBeLessThanOrEqual(WINDOW_MS / 2);
      expect((await sliding(3).peek('T1')).ok).toBe(false);
      expect((await sliding(3).take('T2')).ok).toBe(true);
      await sleep(WINDOW_MS / 2 + 100);
      expect(await sliding(3).take('T1')).toMatchObject({ ok: true, used: 1 });
    });

    it('peek without taking, and give a refunded use back', async () => {
      expect(await sliding(2).peek('T1')).toEqual({ ok: true, used: 0, left: 2, resetInMs: 0 });
      await sliding(2).take('T1');
      await sliding(2).take('T1');
      expect(await sliding(2).peek('T1')).toMatchObject({ ok: false, used: 2, left: 0 });
      await sliding(2).refund('T1');
      expect(await sliding(2).take('T1')).toMatchObject({ ok: true, used: 2, left: 0 });
    });
  });

  jobStoreContract(() => store);

  describe('scopes', () => {
    /** Writes the same names through a store (or a scope of it), so a crossing would show as a value or a refusal. */
    async function work(on: Store, tag: string) {
      await on.kv.set('settings', `settings of ${tag}`);
      expect(await on.claims.claim('event:Ev1', tag, 10_000)).toBe(true);
      await on.jobs.create(binding({ prompt: `prompt of ${tag}` }), { status: 'active' }, 1);
      expect((await on.budget({ name: 'quota', points: 5, durationMs: 60_000 }).take('proj_a')).used).toBe(1);
    }

    it('keeps two scopes and the store itself apart: kv, claims, jobs and budgets of the same names', async () => {
      await work(store, 'root');
      await work(store.scoped('T1ACME'), 'T1ACME');
      await work(store.scoped('T2GLOBEX'), 'T2GLOBEX');
      for (const [on, tag] of [
        [store, 'root'],
        [store.scoped('T1ACME'), 'T1ACME'],
        [store.scoped('T2GLOBEX'), 'T2GLOBEX'],
      ] as const) {
        expect(await on.kv.get('settings')).toBe(`settings of ${tag}`);
        expect(await on.jobs.get({ project: 'proj_a', jobId: 'job-1' })).toMatchObject({ prompt: `prompt of ${tag}` });
        expect(await on.jobs.forUser('U1', 10)).toEqual([{ project: 'proj_a', jobId: 'job-1' }]);
        expect(await on.claims.renew('event:Ev1', tag, 10_000)).toBe(true);
      }
    });

    it('drops one scope whole, leaving the other and the store itself as they were', async () => {
      await work(store, 'root');
      await work(store.scoped('T1ACME'), 'T1ACME');
      await work(store.scoped('T2GLOBEX'), 'T2GLOBEX');
      await store.dropScope('T1ACME');
      const dropped = store.scoped('T1ACME');
      expect(await dropped.kv.get('settings')).toBeUndefined();
      expect(await dropped.jobs.get({ project: 'proj_a', jobId: 'job-1' })).toBeUndefined();
      expect(await dropped.jobs.active('proj_a')).toEqual([]);
      expect(await dropped.jobs.forThread(['proj_a'], 'C1', '1700000000.000100')).toBeUndefined();
      expect(await dropped.claims.claim('event:Ev1', 'new owner', 10_000)).toBe(true);
      expect((await dropped.budget({ name: 'quota', points: 5, durationMs: 60_000 }).peek('proj_a')).used).toBe(0);
      expect(await store.scoped('T2GLOBEX').kv.get('settings')).toBe('settings of T2GLOBEX');
      expect(await store.scoped('T2GLOBEX').jobs.active('proj_a')).toEqual(['job-1']);
      expect(await store.kv.get('settings')).toBe('settings of root');
      expect(await store.jobs.active('proj_a')).toEqual(['job-1']);
    });

    it.each(['', 'T1:*', 'a b', 'ws:T1', 'x'.repeat(65)])(
      'refuses %j as a scope: it could forge another key',
      (scope) => {
        expect(() => store.scoped(scope)).toThrow(/not a store scope/);
      },
    );

    jobStoreContract(() => store.scoped('T9SCOPED'));
  });

  describe('namespaces', () => {
    it('isolates stores on different namespaces', async () => {
      const other = await another(`${namespace}-other`);
      try {
        await store.kv.set('k', 'mine');
        expect(await store.claims.claim('job:1', 'owner-a', 10_000)).toBe(true);
        await store.jobs.create(binding(), { status: 'active' }, 1);

        expect(await other.kv.get('k')).toBeUndefined();
        expect(await other.claims.claim('job:1', 'owner-b', 10_000)).toBe(true);
        expect(await other.jobs.active('proj_a')).toEqual([]);
        expect(await other.jobs.get({ project: 'proj_a', jobId: 'job-1' })).toBeUndefined();
      } finally {
        await factory.dispose?.(`${namespace}-other`);
      }
    });
  });
}
