import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics.js';
import { RECORD_TTL_MS } from '../../src/store/jobs.js';
import { keys } from '../../src/store/keys.js';
import { watchStoreLoss } from '../../src/store/loss.js';
import { createStore, type Store } from '../../src/store/store.js';
import { captureLogs } from '../support/logs.js';
import { dropNamespace, storesOnly, testNamespace } from '../support/redis.js';

describe.each(storesOnly)('the store’s data-loss marker ($kind store)', ({ redisUrl, available }) => {
  const namespace = testNamespace();
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    if (redisUrl) await dropNamespace(namespace);
  });

  it.skipIf(!available)(
    'a vanished marker is logged once, counted, and dates the loss for thread lookups',
    async () => {
      const logs = captureLogs();
      store = await createStore({ redisUrl, namespace, log: logs.log });
      const metrics = createMetrics();
      let now = 1_000_000;
      const first = watchStoreLoss(store, { log: logs.log, metrics, now: () => now });
      await first.start();
      expect(await first.lostBefore(now - 1)).toBe(false); // a first start is no loss
      expect(await store.kv.get(keys.storeMarker())).toEqual({ sinceMs: 1_000_000 });

      await store.kv.delete(keys.storeMarker()); // what FLUSHDB or an empty replica does
      now += 5_000;
      expect(await first.lostBefore(now - 1)).toBe(true); // a thread started before the loss
      expect(await first.lostBefore(now + 1)).toBe(false); // one started after it is in the store if it is a job's
      expect(logs.lines.filter((line) => line.includes('"store.data_lost"'))).toHaveLength(1);
      expect(await metrics.render()).toContain('mintlify_slack_store_data_lost_total{found="marker"} 1');

      // Another instance (or the next start) learns the loss from the marker, without logging it again.
      const second = watchStoreLoss(store, { log: logs.log, metrics, now: () => now });
      await second.start();
      expect(await second.lostBefore(now - 1)).toBe(true);
      expect(logs.lines.filter((line) => line.includes('"store.data_lost"'))).toHaveLength(1);
      now += RECORD_TTL_MS; // every record of before the loss has expired by now
      expect(await second.lostBefore(1)).toBe(false);
      first.stop();
      second.stop();
    },
  );

  it.skipIf(!available)(
    'tells its listeners of each loss once: the one it found, one another found, one before it started',
    async () => {
      const logs = captureLogs();
      store = await createStore({ redisUrl, namespace, log: logs.log });
      const metrics = createMetrics();
      let now = 2_000_000;
      const first = watchStoreLoss(store, { log: logs.log, metrics, now: () => now });
      await first.start();
      const heard: number[] = [];
      first.onLost((lostAtMs) => heard.push(lostAtMs));
      expect(heard).toEqual([]); // a first start is no loss

      await store.kv.delete(keys.storeMarker());
      now += 5_000;
      await first.lostBefore(now);
      await first.lostBefore(now); // read again: the same loss, not told twice
      expect(heard).toEqual([2_005_000]);

      // An instance started after the loss hears of it as soon as it listens; a later loss another found, when it reads.
      const second = watchStoreLoss(store, { log: logs.log, metrics, now: () => now });
      await second.start();
      const heardLater: number[] = [];
      second.onLost((lostAtMs) => heardLater.push(lostAtMs));
      expect(heardLater).toEqual([2_005_000]);
      await store.kv.delete(keys.storeMarker());
      now += 5_000;
      await first.lostBefore(now);
      await second.lostBefore(now);
      expect(heard).toEqual([2_005_000, 2_010_000]);
      expect(heardLater).toEqual([2_005_000, 2_010_000]);
      first.stop();
      second.stop();
    },
  );

  it.skipIf(!available)(
    'a marker written afresh by an instance that started on the emptied store is a loss too; starting together is not',
    async () => {
      const logs = captureLogs();
      store = await createStore({ redisUrl, namespace, log: logs.log });
      const metrics = createMetrics();
      let now = 3_000_000;
      const watch = () => watchStoreLoss(store as Store, { log: logs.log, metrics, now: () => now });
      // Two instances starting at once on an empty store: one first start, the other reads it.
      const [first, second] = [watch(), watch()];
      await Promise.all([first.start(), second.start()]);
      expect(await first.lostBefore(now - 1)).toBe(false);
      expect(await second.lostBefore(now - 1)).toBe(false);
      expect(logs.lines.filter((line) => line.includes('"store.data_lost"'))).toEqual([]);

      // Emptied; a third instance starts on it before the others' next check.
      await store.kv.delete(keys.storeMarker());
      await store.claims.takeOver(keys.storeMarking(), 'flush', 60_000); // FLUSHDB takes every key
      await store.claims.release(keys.storeMarking(), 'flush');
      now += 5_000;
      const third = watch();
      await third.start();
      expect(await store.kv.get(keys.storeMarker())).toEqual({ sinceMs: now }); // as on a first start
      expect(await first.lostBefore(now - 1)).toBe(true);
      expect(await second.lostBefore(now - 1)).toBe(true);
      expect(await third.lostBefore(now - 1)).toBe(true); // it learns the loss from the others
      expect(logs.lines.filter((line) => line.includes('"store.data_lost"'))).toHaveLength(1);
      for (const w of [first, second, third]) w.stop();
    },
  );
});
