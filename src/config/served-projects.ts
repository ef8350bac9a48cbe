import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { RECORD_TTL_MS } from '../store/jobs.js';
import { keys } from '../store/keys.js';
import { underClaim } from '../store/lists.js';
import type { Store } from '../store/store.js';

/**
 * Each project this deployment served: `null` while it still does (as of its latest start), else when the first start
 * without it found it gone (ms). Its jobs ran until then, however long before that start was.
 */
const ServedSchema = z.record(z.string(), z.number().nullable());

/**
 * Notes that `served` (the configuration's projects) are served now, and returns those served before and no longer
 * (single-workspace mode: taken out of the configuration), so a reply in one's job thread is answered, not ignored.
 * A project taken out for as long as a job's record lives is forgotten: its threads went with its records.
 */
export async function recordServedProjects(
  store: Pick<Store, 'kv' | 'claims'>,
  served: readonly string[],
  now: number,
): Promise<string[]> {
  return underClaim(store, keys.servedProjectsLock(), randomUUID(), async () => {
    const read = ServedSchema.safeParse(await store.kv.get(keys.servedProjects()));
    const before = Object.entries(read.success ? read.data : {});
    const former = before
      .filter(([project]) => !served.includes(project))
      .map(([project, goneAt]) => [project, goneAt ?? now] as const)
      .filter(([, goneAt]) => goneAt > now - RECORD_TTL_MS);
    const current = Object.fromEntries(served.map((project) => [project, null]));
    await store.kv.set(keys.servedProjects(), { ...Object.fromEntries(former), ...current });
    return former.map(([project]) => project);
  });
}
