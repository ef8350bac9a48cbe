import type { RedisClientType } from '@keyv/redis';
import {
  type EndedKind,
  fromFields,
  initialRecord,
  type JobBinding,
  type JobObservation,
  type JobRecord,
  type JobRef,
  type JobStore,
  type PostPermit,
  RECORD_TTL_MS,
  STARTING_TTL_MS,
  type StoppedKind,
  type ThreadKind,
  type Transition,
  toFields,
  USER_INDEX_MAX,
} from './jobs.js';
import { keys, namespaced } from './keys.js';

// Each transition is one script, so it is atomic however many replicas share the Redis. A record is a hash
// of strings; scripts only touch its scalar fields and answer with the whole hash (HGETALL's flat list). The active
// index gets the records' TTL each time one is written, so the two expire together: an index without a TTL would
// outlive records that an eviction policy or their TTL removed.

/**
 * KEYS: job, thread, active, the user's index · ARGV: ttlMs, jobId, index member, createdAtMs, index size, then
 * field/value pairs. The user's index is a sorted set by creation time that keeps only the newest entries.
 */
const CREATE = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -1 - tonumber(ARGV[5]))
redis.call('PEXPIRE', KEYS[4], ARGV[1])
return redis.call('HGETALL', KEYS[1])`;
/** The same, only when the job has no record (nil otherwise). */
const REBIND = `if redis.call('EXISTS', KEYS[1]) == 1 then return false end\n${CREATE}`;

/**
 * KEYS: job, thread, active · ARGV: ttlMs, jobId, atMs, unsureTs ('' when sure), then the binding's field/value pairs
 * (a vanished record). An unsure round keeps the end the thread was told: the last round's, or the one an unsure
 * round still open kept; and with it the `ts` of its reply.
 */
const START_ROUND = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 5)) end
local told = ''
if ARGV[4] ~= '' then
  local last = redis.call('HMGET', KEYS[1], 'ended', 'unsure')
  told = (last[1] and last[1] ~= '') and last[1] or last[2] or ''
end
local replyTs = told ~= '' and ARGV[4] or ''
redis.call('HINCRBY', KEYS[1], 'round', 1)
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('HSET', KEYS[1], 'roundStartedAtMs', ARGV[3], 'status', 'active', 'ended', '', 'attempt', '', 'unsure', told,
  'unsureTs', replyTs)
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[1])
return redis.call('HGETALL', KEYS[1])`;

/**
 * KEYS: job, active · ARGV: round, ended, prLink ('' keeps it), jobId, stoppedBy ('' keeps it) · → {1|0, fields…}
 * A posted PR link is recorded even when the round moved on: it is in the thread, so the next round "updates" it.
 */
const END_ROUND = `
local cur = redis.call('HMGET', KEYS[1], 'round', 'ended')
if not cur[1] then return {0} end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'prLink', ARGV[3]) end
if cur[1] ~= ARGV[1] or (cur[2] and cur[2] ~= '') then return {0, unpack(redis.call('HGETALL', KEYS[1]))} end
redis.call('HSET', KEYS[1], 'ended', ARGV[2], 'attempt', '')
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'stoppedBy', ARGV[5]) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('SREM', KEYS[2], ARGV[4])
return {1, unpack(redis.call('HGETALL', KEYS[1]))}`;

/**
 * KEYS: job · ARGV: round, atMs · → {'missing' | 'superseded' | 'ended' | 'first'} | {'again', the first attempt's
 * atMs ('' in older records)}
 */
const BEGIN_POST = `
local cur = redis.call('HMGET', KEYS[1], 'round', 'ended', 'attempt', 'attemptAtMs')
if not cur[1] then return {'missing'} end
if cur[1] ~= ARGV[1] then return {'superseded'} end
if cur[2] and cur[2] ~= '' then return {'ended'} end
if cur[3] == ARGV[1] then return {'again', cur[4] or ''} end
redis.call('HSET', KEYS[1], 'attempt', ARGV[1], 'attemptAtMs', ARGV[2])
return {'first'}`;

/** KEYS: job · ARGV: round · forgets the round's post attempt (Slack refused it outright). */
const ABANDON_POST = `
if redis.call('HGET', KEYS[1], 'attempt') == ARGV[1] then redis.call('HSET', KEYS[1], 'attempt', '') end
return 0`;

/**
 * KEYS: job · ARGV: field/value pairs ('' = unchanged, except status) · clears `unsure` (the job runs) and bumps rev
 * when a value changed. Every poll runs it: the fields are read in one HMGET and the changes written in one HSET (it
 * read them one HGET each).
 */
const OBSERVE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local names = {'unsure'}
for i = 1, #ARGV, 2 do names[#names + 1] = ARGV[i] end
local current = redis.call('HMGET', KEYS[1], unpack(names))
local changes = {}
if current[1] and current[1] ~= '' then
  changes[1] = 'unsure'
  changes[2] = ''
end
for i = 1, #ARGV, 2 do
  local value = ARGV[i + 1]
  if value ~= '' and current[(i + 1) / 2 + 1] ~= value then
    changes[#changes + 1] = ARGV[i]
    changes[#changes + 1] = value
  end
end
if #changes == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(changes))
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1`;

const pairs = (fields: Record<string, string>) => Object.entries(fields).flat();
const TTL = String(RECORD_TTL_MS);

/** Turns HGETALL's flat list back into an object. */
function hash(list: unknown): Record<string, string> {
  const flat = list as string[];
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}

type Fields = NonNullable<ReturnType<typeof fromFields>>;

/** The job store shared by every instance on one Redis; keys live under `ns`. */
export class RedisJobStore implements JobStore {
  constructor(
    private readonly client: RedisClientType,
    private readonly ns: string,
  ) {}

  async create(binding: JobBinding, observation: JobObservation, atMs: number): Promise<JobRecord> {
    return (await this.#create(CREATE, binding, observation, atMs)) as JobRecord;
  }

  rebind(binding: JobBinding, observation: JobObservation, atMs: number): Promise<JobRecord | undefined> {
    return this.#create(REBIND, binding, observation, atMs);
  }

  async #create(script: string, binding: JobBinding, observation: JobObservation, atMs: number) {
    const fields = toFields(initialRecord(binding, observation, atMs));
    const result = await this.client.eval(script, {
      keys: [...this.#bindingKeys(binding, binding.channel, binding.threadTs), this.#at(keys.userJobs(binding.userId))],
      arguments: [
        TTL,
        binding.jobId,
        JSON.stringify([binding.project, binding.jobId]),
        String(binding.createdAtMs),
        String(USER_INDEX_MAX),
        ...pairs(fields),
      ],
    });
    return result ? (fromFields(binding, hash(result)) as Fields) : undefined;
  }

  async get(ref: JobRef): Promise<JobRecord | undefined> {
    return fromFields(ref, await this.client.hGetAll(this.#at(keys.job(ref))));
  }

  async forThread(projects: readonly string[], channel: string, threadTs: string): Promise<JobRef | undefined> {
    if (projects.length === 0) return undefined;
    const ids = await this.client.mGet(projects.map((p) => this.#at(keys.thread(p, channel, threadTs))));
    const index = ids.findIndex((id) => typeof id === 'string' && id !== '');
    return index < 0 ? undefined : { project: projects[index] as string, jobId: ids[index] as string };
  }

  async active(project: string): Promise<string[]> {
    return this.client.sMembers(this.#at(keys.active(project)));
  }

  async startRound(binding: JobBinding, atMs: number, unsureTs?: string): Promise<JobRecord> {
    const seed = toFields(initialRecord(binding, { status: 'active' }, atMs));
    const result = await this.client.eval(START_ROUND, {
      keys: this.#bindingKeys(binding, binding.channel, binding.threadTs),
      arguments: [TTL, binding.jobId, String(atMs), unsureTs ?? '', ...pairs(seed)],
    });
    return fromFields(binding, hash(result)) as Fields;
  }

  endRound(ref: JobRef, round: number, ended: EndedKind, prLink?: string | null): Promise<Transition> {
    return this.#end(ref, round, ended, prLink);
  }

  stopTracking(ref: JobRef, round: number, why: StoppedKind = 'untracked', by?: string): Promise<Transition> {
    return this.#end(ref, round, why, undefined, by);
  }

  async beginPost(ref: JobRef, round: number, atMs: number): Promise<PostPermit> {
    const [answer, earlierAtMs] = (await this.client.eval(BEGIN_POST, {
      keys: [this.#at(keys.job(ref))],
      arguments: [String(round), String(atMs)],
    })) as ['missing' | 'superseded' | 'ended' | 'first' | 'again', string?];
    if (answer === 'first') return { ok: true, earlierAttempt: false };
    if (answer === 'again') return { ok: true, earlierAttempt: true, atMs: Number(earlierAtMs) || undefined };
    return { ok: false, reason: answer };
  }

  async abandonPost(ref: JobRef, round: number): Promise<void> {
    await this.client.eval(ABANDON_POST, { keys: [this.#at(keys.job(ref))], arguments: [String(round)] });
  }

  async observe(ref: JobRef, observation: JobObservation): Promise<boolean> {
    const { status, repository, ref: gitRef, model } = observation;
    const changed = await this.client.eval(OBSERVE, {
      keys: [this.#at(keys.job(ref))],
      arguments: pairs(toFields({ status, repository, ref: gitRef, model })),
    });
    return changed === 1;
  }

  async untrack(ref: JobRef): Promise<void> {
    await this.client.sRem(this.#at(keys.active(ref.project)), ref.jobId);
  }

  async forUser(userId: string, limit: number): Promise<JobRef[]> {
    const members = await this.client.zRange(this.#at(keys.userJobs(userId)), 0, limit - 1, { REV: true });
    return members.map((member) => {
      const [project, jobId] = JSON.parse(member) as [string, string];
      return { project, jobId };
    });
  }

  async markStarting(project: string, channel: string, threadTs: string, thread: ThreadKind): Promise<void> {
    await this.client.set(this.#at(keys.starting(project, channel, threadTs)), thread, {
      expiration: { type: 'PX', value: STARTING_TTL_MS },
    });
  }

  async startingIn(projects: readonly string[], channel: string, threadTs: string): Promise<ThreadKind | undefined> {
    if (projects.length === 0) return undefined;
    const marks = await this.client.mGet(projects.map((p) => this.#at(keys.starting(p, channel, threadTs))));
    const mark = marks.find((m) => typeof m === 'string' && m !== '');
    return mark ? (mark === 'joined' ? 'joined' : 'own') : undefined;
  }

  async clearStarting(project: string, channel: string, threadTs: string): Promise<void> {
    await this.client.del(this.#at(keys.starting(project, channel, threadTs)));
  }

  #at(key: string): string {
    return namespaced(this.ns, key);
  }

  /** The keys every binding script takes: the record, the thread's binding, the project's active set. */
  #bindingKeys(ref: JobRef, channel = '', threadTs = ''): string[] {
    return [
      this.#at(keys.job(ref)),
      this.#at(keys.thread(ref.project, channel, threadTs)),
      this.#at(keys.active(ref.project)),
    ];
  }

  async #end(ref: JobRef, round: number, ended: string, prLink?: string | null, by?: string): Promise<Transition> {
    const [ok, ...rest] = (await this.client.eval(END_ROUND, {
      keys: [this.#at(keys.job(ref)), this.#at(keys.active(ref.project))],
      arguments: [String(round), ended, prLink ?? '', ref.jobId, by ?? ''],
    })) as [number, ...string[]];
    const record = fromFields(ref, hash(rest));
    return ok === 1 && record ? { ok: true, record } : { ok: false, record };
  }
}
