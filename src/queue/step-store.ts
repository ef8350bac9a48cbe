import type { Redis, Result } from 'ioredis';
import { CYCLE, DISCARD, RENEW, RETRY_FAILED } from './step-scripts.js';

/** Where a step lane lives on Redis, and the scripts that change it (step-scripts.ts says what each holds). */
export interface StepKeys {
  due: string;
  lease: string;
  jobs: string;
  failed: string;
  failures: string;
  /** Marks the lane for `lanes()`, as BullMQ's `meta` marks its queues. */
  meta: string;
}

/**
 * Under `<prefix>:<lane>:steps:`, apart from BullMQ's keys of a lane of that name (a job id has no `:`, so no BullMQ
 * job key can be one of these), which a deploy may still hold (step-migration.ts). The marker is BullMQ's `meta`
 * hash, given one more field, so `lanes()` finds step lanes and BullMQ's as one list.
 */
export function stepKeys(prefix: string, lane: string): StepKeys {
  const key = (name: string) => `${prefix}:${lane}:steps:${name}`;
  return {
    due: key('due'),
    lease: key('lease'),
    jobs: key('jobs'),
    failed: key('failed'),
    failures: key('failures'),
    meta: `${prefix}:${lane}:meta`,
  };
}

/** Where an add that another process's workers should claim at once is announced (the lane's name; step-wakes.ts). */
export const stepWakeChannel = (prefix: string) => `${prefix}:steps:added`;

/** The name a step worker's connection carries, so CLIENT LIST tells how many workers take the lane. */
export const stepClientName = (prefix: string, lane: string) => `${prefix}:${lane}:steps`;

export interface Entry {
  tries: number;
  takeovers: number;
  readyAt: number;
  token: string;
  json: string;
}

export const formatEntry = ({ tries, takeovers, readyAt, token, json }: Entry) =>
  `${tries}|${takeovers}|${readyAt}|${token}|${json}`;

/** An entry no claim holds: due for its next step, its next try or another worker. */
export const unheld = (tries: number, takeovers: number, readyAt: number, json: string) =>
  formatEntry({ tries, takeovers, readyAt, token: '', json });

export function parseEntry(text: string): Entry {
  const match = /^(\d+)\|(\d+)\|(\d+)\|([^|]*)\|(.*)$/s.exec(text);
  if (!match) throw new Error('Not a step entry');
  const [, tries, takeovers, readyAt, token = '', json = ''] = match;
  return { tries: Number(tries), takeovers: Number(takeovers), readyAt: Number(readyAt), token, json };
}

/** A failure: its tries, its error (its length in bytes first, as Lua counts) and the job's data as JSON. */
export const formatFailure = (attempts: number, error: string, json: string) =>
  `${attempts}|${Buffer.byteLength(error)}|${error}${json}`;

export function parseFailure(text: string): { attempts: number; error: string; json: string } {
  const match = /^(\d+)\|(\d+)\|(.*)$/s.exec(text);
  const rest = Buffer.from(match?.[3] ?? '');
  const bytes = Number(match?.[2] ?? 0);
  return {
    attempts: Number(match?.[1] ?? 0),
    error: rest.subarray(0, bytes).toString(),
    json: rest.subarray(bytes).toString(),
  };
}

export type SettleKind = 'again' | 'retry' | 'back' | 'done' | 'fail';

/** A finished step's result, sent with the worker's next claim. */
export interface Settle {
  id: string;
  token: string;
  kind: SettleKind;
  dueAt: number;
  /** The new entry (again, retry, back) or the failure (fail). */
  payload: string;
}

export interface CycleResult {
  settled: number[];
  claimed: [id: string, entry: string, tookOver: number][];
  unrun: [id: string, tries: string, json: string][];
  nextAt: string;
  /** Due or lapsed jobs whose entry did not read (`UNREADABLE_ERROR`): failed. */
  unreadable: string[];
}

type Args = (string | number)[];

// The workers' scripts as ioredis commands (ioredis' documented way to type `defineCommand`); adds go through
// step-adder.ts.
declare module 'ioredis' {
  interface RedisCommander<Context> {
    stepCycle(
      ...args: Args
    ): Result<[number[], CycleResult['claimed'], CycleResult['unrun'], string, string[]], Context>;
    stepRenew(...args: Args): Result<number, Context>;
    stepRetryFailed(...args: Args): Result<number, Context>;
    stepDiscard(...args: Args): Result<number, Context>;
  }
}

const scripted = new WeakSet<Redis>();

/** The scripts on `redis` (sent once, then run by their digest: EVALSHA). */
export function stepScripts(redis: Redis): Redis {
  if (!scripted.has(redis)) {
    redis.defineCommand('stepCycle', { numberOfKeys: 5, lua: CYCLE });
    redis.defineCommand('stepRenew', { numberOfKeys: 2, lua: RENEW });
    redis.defineCommand('stepRetryFailed', { numberOfKeys: 4, lua: RETRY_FAILED });
    redis.defineCommand('stepDiscard', { numberOfKeys: 2, lua: DISCARD });
    scripted.add(redis);
  }
  return redis;
}

export interface CycleArgs {
  /** How long a claimed job is leased, from when Redis runs the cycle. */
  lockMs: number;
  limit: number;
  token: string;
  maxTakeovers: number;
  failedKeep: number;
  failedMinAt: number;
  stalledError: string;
  settles: Settle[];
}

export async function cycle(redis: Redis, keys: StepKeys, args: CycleArgs): Promise<CycleResult> {
  const settleArgs = args.settles.flatMap((s) => [s.id, s.token, s.kind, s.dueAt, s.payload]);
  const [settled, claimed, unrun, nextAt, unreadable] = await stepScripts(redis).stepCycle(
    keys.due,
    keys.lease,
    keys.jobs,
    keys.failed,
    keys.failures,
    args.lockMs,
    args.limit,
    args.token,
    args.maxTakeovers,
    args.failedKeep,
    args.failedMinAt,
    args.stalledError,
    args.settles.length,
    ...settleArgs,
  );
  return { settled, claimed, unrun, nextAt, unreadable };
}
