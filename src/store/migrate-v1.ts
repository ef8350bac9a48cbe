import type { RedisClientType } from '@keyv/redis';
import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { JobStatusSchema } from '../mintlify/schemas.js';
import { ENDED_KINDS, type JobRecord, jobKeys, toFields } from './jobs.js';

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

const DONE_KEY = 'migrated:v1';
const LOCK_MS = 60_000;

export async function migrateV1(
  client: RedisClientType,
  kv: Keyv,
  ns: string,
  project: string,
  log: Logger,
): Promise<void> {
  if (await client.exists(`${ns}:${DONE_KEY}`)) return;
  // One replica migrates; the others go on (they find the records once it is done).
  if (
    (await client.set(`${ns}:${DONE_KEY}:lock`, '1', {
      condition: 'NX',
      expiration: { type: 'PX', value: LOCK_MS },
    })) !== 'OK'
  ) {
    return;
  }
  const active = new Set(await client.sMembers(`${ns}:active-jobs`));
  let moved = 0;
  for await (const keys of client.scanIterator({ MATCH: `${ns}::thread:*`, COUNT: 500 })) {
    for (const key of keys) {
      const jobId = await kv.get(key.slice(`${ns}::`.length));
      const legacy = LegacyRecordSchema.safeParse(typeof jobId === 'string' ? await kv.get(`job:${jobId}`) : undefined);
      if (!legacy.success) continue;
      const ttlMs = await client.pTTL(key);
      await restore(client, ns, project, legacy.data, active.has(legacy.data.jobId), ttlMs > 0 ? ttlMs : undefined, kv);
      moved++;
    }
  }
  await client.set(`${ns}:${DONE_KEY}`, String(moved));
  await client.del(`${ns}:active-jobs`);
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
  const posted = !legacy.ended && (await kv.get(`posted:${legacy.jobId}:${legacy.round}`)) === true;
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
  const jobKey = jobKeys.job(ns, ref);
  const multi = client
    .multi()
    .hSet(jobKey, toFields(record))
    .set(jobKeys.thread(ns, project, legacy.channel, legacy.threadTs), legacy.jobId);
  if (ttlMs) multi.pExpire(jobKey, ttlMs).pExpire(jobKeys.thread(ns, project, legacy.channel, legacy.threadTs), ttlMs);
  if (tracked && !legacy.ended) multi.sAdd(jobKeys.active(ns, project), legacy.jobId);
  await multi.exec();
}
