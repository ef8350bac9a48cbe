import type { RedisClientType } from '@keyv/redis';
import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { JobStatusSchema } from '../mintlify/schemas.js';
import { ENDED_KINDS, type JobRecord, toFields } from './jobs.js';
import { keys, namespaced } from './keys.js';

/**
 * Version 0.1 kept one project's jobs as Keyv values (`job:<id>`, `thread:<channel>:<ts>`) with an
 * `active-jobs` set and `posted:<id>:<round>` marks. On Redis those are moved, once, into the job store's
 * project-scoped records (the project is the one that version served), so an upgrade mid-job loses nothing.
 */
const LegacyRecordSchema = z.object({
  jobId: z.string(),
  channel: z.string(),
  threadTs: z.string(),
  userId: z.string(),
  prompt: z.string(),
  status: JobStatusSchema,
  ended: z.enum(ENDED_KINDS).nullish(),
  repository: z.string().nullish(),
  ref: z.string().nullish(),
  model: z.string().nullish(),
  prLink: z.string().nullish(),
  round: z.number().int().min(0),
  createdAtMs: z.number(),
  roundStartedAtMs: z.number(),
});

const LOCK_MS = 60_000;

export async function migrateV1(
  client: RedisClientType,
  kv: Keyv,
  ns: string,
  project: string,
  log: Logger,
): Promise<void> {
  if (await client.exists(namespaced(ns, keys.legacy.done()))) return;
  // One replica migrates; the others go on (they find the records once it is done).
  if (
    (await client.set(namespaced(ns, keys.legacy.doneLock()), '1', {
      condition: 'NX',
      expiration: { type: 'PX', value: LOCK_MS },
    })) !== 'OK'
  ) {
    return;
  }
  const active = new Set(await client.sMembers(namespaced(ns, keys.legacy.active())));
  let moved = 0;
  for await (const found of client.scanIterator({ MATCH: keys.legacy.threadPattern(ns), COUNT: 500 })) {
    for (const key of found) {
      const jobId = await kv.get(key.slice(keys.legacy.keyvPrefix(ns).length));
      const stored = typeof jobId === 'string' ? await kv.get(keys.legacy.job(jobId)) : undefined;
      const legacy = LegacyRecordSchema.safeParse(stored);
      if (!legacy.success) continue;
      const ttlMs = await client.pTTL(key);
      await restore(client, ns, project, legacy.data, active.has(legacy.data.jobId), ttlMs > 0 ? ttlMs : undefined, kv);
      moved++;
    }
  }
  await client.set(namespaced(ns, keys.legacy.done()), String(moved));
  await client.del(namespaced(ns, keys.legacy.active()));
  log.info('store.migrated', { from: 'v1', project, jobs: moved, active: active.size });
}

async function restore(
  client: RedisClientType,
  ns: string,
  project: string,
  legacy: z.infer<typeof LegacyRecordSchema>,
  tracked: boolean,
  ttlMs: number | undefined,
  kv: Keyv,
): Promise<void> {
  // A round whose outcome was posted but not yet recorded: mark it attempted, so the poster reads the thread first.
  const posted = !legacy.ended && (await kv.get(keys.legacy.posted(legacy.jobId, legacy.round))) === true;
  const record: JobRecord = {
    ...legacy,
    project,
    statusTs: legacy.threadTs,
    repository: legacy.repository ?? null,
    ref: legacy.ref ?? null,
    model: legacy.model ?? null,
    prLink: legacy.prLink ?? null,
    ended: legacy.ended ?? null,
    attempt: posted ? legacy.round : null,
    rev: 0,
  };
  const ref = { project, jobId: legacy.jobId };
  const jobKey = namespaced(ns, keys.job(ref));
  const threadKey = namespaced(ns, keys.thread(project, legacy.channel, legacy.threadTs));
  const multi = client.multi().hSet(jobKey, toFields(record)).set(threadKey, legacy.jobId);
  if (ttlMs) multi.pExpire(jobKey, ttlMs).pExpire(threadKey, ttlMs);
  if (tracked && !legacy.ended) multi.sAdd(namespaced(ns, keys.active(project)), legacy.jobId);
  await multi.exec();
}
