import { afterAll, describe, expect, it } from 'vitest';
import { recordServedProjects } from '../../src/config/served-projects.js';
import { RECORD_TTL_MS } from '../../src/store/jobs.js';
import { createStore } from '../../src/store/store.js';
import { captureLogs } from '../support/logs.js';
import { dropNamespace, storesOnly, testNamespace } from '../support/redis.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(storesOnly)('recordServedProjects ($label)', ({ redisUrl, available }) => {
  const namespaces: string[] = [];
  const newStore = () => {
    namespaces.push(testNamespace());
    return createStore({ redisUrl, namespace: namespaces.at(-1), log: captureLogs().log });
  };
  afterAll(async () => {
    if (redisUrl && available) for (const namespace of namespaces) await dropNamespace(namespace);
  });

  it.runIf(available)(
    'returns the projects served at an earlier start and not now, until their jobs’ records are gone',
    async () => {
      const store = await newStore();
      expect(await recordServedProjects(store, ['proj_a', 'proj_b', 'proj_c'], 0)).toEqual([]);
      // proj_b taken out of the configuration, proj_c too but added back later.
      expect(await recordServedProjects(store, ['proj_a'], DAY)).toEqual(['proj_b', 'proj_c']);
      expect(await recordServedProjects(store, ['proj_a', 'proj_c'], 2 * DAY)).toEqual(['proj_b']);
      // Still former a start later: it is remembered as taken out at the first start without it, not at each one.
      expect(await recordServedProjects(store, ['proj_a'], 3 * DAY)).toEqual(['proj_b', 'proj_c']);
      expect(await recordServedProjects(store, ['proj_a'], DAY + RECORD_TTL_MS + 1)).toEqual(['proj_c']);
      await store.close();
    },
  );

  it.runIf(available)(
    'counts a project’s time from when it was taken out, not from the start that last served it',
    async () => {
      const store = await newStore();
      // One process served proj_old for 29 days without a restart: its jobs of day 28 live until day 58.
      expect(await recordServedProjects(store, ['proj_new', 'proj_old'], 0)).toEqual([]);
      expect(await recordServedProjects(store, ['proj_new'], 29 * DAY)).toEqual(['proj_old']);
      expect(await recordServedProjects(store, ['proj_new'], 31 * DAY)).toEqual(['proj_old']);
      expect(await recordServedProjects(store, ['proj_new'], 29 * DAY + RECORD_TTL_MS + 1)).toEqual([]);
      await store.close();
    },
  );
});
