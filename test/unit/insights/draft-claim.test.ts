import { afterAll, describe, expect, it } from 'vitest';
import { claimDraft, draftState, recordDraftJob } from '../../../src/insights/draft-claim.js';
import type { Evidence } from '../../../src/insights/evidence.js';
import { createStore } from '../../../src/store/store.js';
import { captureLogs } from '../../support/logs.js';
import { dropNamespace, storesOnly, testNamespace } from '../../support/redis.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const evidence: Evidence = {
  kind: 'page',
  project: 'proj_a',
  from: '2026-11-01',
  to: '2026-11-27',
  path: '/quickstart',
  thumbsDown: 3,
  thumbsUp: 1,
  comments: ['Step 2 fails'],
};

describe.each(storesOnly)('a Draft a fix claim ($label)', ({ redisUrl, available }) => {
  const namespaces: string[] = [];
  const newStore = () => {
    namespaces.push(testNamespace());
    return createStore({ redisUrl, namespace: namespaces.at(-1), log: captureLogs().log });
  };
  afterAll(async () => {
    if (redisUrl && available) for (const namespace of namespaces) await dropNamespace(namespace);
  });

  it.runIf(available)(
    'is about the thing readers struggle with, whichever project the job was started on',
    async () => {
      const store = await newStore();
      const deps = { store, now: () => NOW };
      // The form's picker chose proj_b for a page of proj_a: a later click on proj_a's row sees that job.
      const claimed = await claimDraft(deps, { project: 'proj_b', channel: 'C1', evidence }, 'U1');
      if (!claimed.ok) throw new Error('not claimed');
      expect(await draftState(deps, { project: 'proj_a', channel: 'C1', evidence })).toEqual({
        state: 'starting',
        userId: 'U1',
      });
      const binding = { project: 'proj_b', jobId: 'j1', channel: 'C1', threadTs: '1.0', statusTs: '1.0' };
      await store.jobs.create({ ...binding, userId: 'U1', prompt: 'Fix', createdAtMs: NOW }, { status: 'active' }, NOW);
      await recordDraftJob(deps, { project: 'proj_b', channel: 'C1', evidence }, claimed.owner, '1.0');
      expect(await draftState(deps, { project: 'proj_a', channel: 'C1', evidence })).toEqual({
        state: 'running',
        userId: 'U1',
        threadTs: '1.0',
      });
      await store.close();
    },
  );

  it.runIf(available)(
    'is let go when its record cannot be written: a retry is not told someone is starting',
    async () => {
      const store = await newStore();
      const deps = { store, now: () => NOW };
      const set = store.kv.set.bind(store.kv);
      store.kv.set = () => Promise.reject(new Error('store down'));
      await expect(claimDraft(deps, { project: 'proj_a', channel: 'C1', evidence }, 'U1')).rejects.toThrow(
        'store down',
      );
      store.kv.set = set;
      expect((await claimDraft(deps, { project: 'proj_a', channel: 'C1', evidence }, 'U1')).ok).toBe(true);
      await store.close();
    },
  );
});
