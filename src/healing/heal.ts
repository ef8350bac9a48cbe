import { setTimeout as sleep } from 'node:timers/promises';
import { JOB_EVENT_TYPE } from '../agent/index.js';
import type { Deps } from '../deps.js';
import { DIGEST_KINDS } from '../digests.js';
import type { QueueInspector } from '../queue/engine.js';
import { classifySlackError } from '../slack/errors.js';
import type { DigestMachinery } from '../visitors/index.js';
import { installationOf } from '../workspace-ref.js';
import { healJob } from './jobs.js';
import { memberChannels, witnessedIn, witnessedInThread } from './witnesses.js';

/** A monthly digest posts every 28 to 31 days: its channel's last one is within this. */
const DIGEST_LOOKBACK_MS = 32 * 24 * 60 * 60 * 1000;
const WITNESSED = new Set([JOB_EVENT_TYPE, ...DIGEST_KINDS.map((kind) => kind.eventType)]);
const JOB_STATUS = new Set([JOB_EVENT_TYPE]);

export interface Healed {
  /** Channels read, jobs whose record came back, subscriptions set up again, digest schedulers made again. */
  channels: number;
  jobs: number;
  subscriptions: number;
  schedulers: number;
  /** Items that failed this time (a channel, a job, a subscription, the schedulers, a workspace): tried again. */
  failed: number;
  /** Slack answered 429: its Retry-After, which the next try waits at least (not counted in what was healed). */
  slackWaitMs?: number;
}

/** The visitors' digest schedulers and subscriptions, given by the composition (`digestMachinery`). */
export type DigestHealing = Pick<DigestMachinery, 'adoptDigests' | 'healSubscription'>;

export const NOTHING_HEALED: Healed = { channels: 0, jobs: 0, subscriptions: 0, schedulers: 0, failed: 0 };

/**
 * Rebuilds what one workspace's store lost from the witnesses: each channel the bot is in is read back (within the
 * job age limit, and far enough for a monthly digest), with the threads the bot replied in or was mentioned at the
 * start of. Each job status message whose record is missing is bound and polled again (`healJob`), each channel
 * whose subscription of a kind is missing gets it back from its newest digest of that kind, and every subscription without a scheduler
 * gets one. Each item is healed on its own: one that fails is logged and counted (`failed`) and the others go on;
 * a channel healed in full is added to `done`, so a later try skips it. A Slack 429 on reading a channel or a thread
 * is waited out there (`WaitOut`); one elsewhere ends the reading (the rest is left to the next try, which waits its
 * Retry-After). The schedulers are made whatever failed.
 * `stillOurs` is asked between channels (the caller's claim); its failure ends the heal.
 */
export async function healWorkspace(
  deps: Deps,
  engine: QueueInspector,
  { adoptDigests, healSubscription }: DigestHealing,
  stillOurs: () => Promise<void>,
  done: Set<string> = new Set(),
): Promise<Healed> {
  const healed = { ...NOTHING_HEALED };
  const failed = (item: Record<string, unknown>, error: unknown) => {
    healed.failed++;
    const failure = classifySlackError(error);
    if (failure.kind === 'rate_limited') healed.slackWaitMs = Math.max(healed.slackWaitMs ?? 0, failure.retryAfterMs);
    deps.log.warn('store.heal_item_failed', { ...item, error });
  };
  // After a 429 the workspace's other reads would be refused too: they wait for the next try.
  const limited = () => healed.slackWaitMs !== undefined;
  // Slack's `ts` is wall-clock time: the window is on the same clock, whatever clock features read.
  const jobsSinceMs = Date.now() - deps.config.jobMaxAgeMs;
  const sinceMs = Math.min(jobsSinceMs, Date.now() - DIGEST_LOOKBACK_MS);
  let channels: string[] = [];
  let botUserId = '';
  try {
    botUserId = String((await deps.slack.auth.test()).user_id ?? '');
    channels = await memberChannels(deps.slack);
  } catch (error) {
    failed({ item: 'channels' }, error);
  }
  const threadsOf = { botUserId, sinceMs: jobsSinceMs };
  const waitOut = async (ms: number) => {
    await stillOurs();
    await sleep(ms, undefined, deps.stopping ? { signal: deps.stopping } : undefined);
    await stillOurs();
  };
  const doneKey = (channel: string) => `${installationOf(deps.workspace)}:${channel}`;
  for (const channel of channels) {
    if (limited()) break;
    if (done.has(doneKey(channel))) continue;
    await stillOurs();
    const before = healed.failed;
    try {
      const reading = { sinceMs, eventTypes: WITNESSED, threadsOf, waitOut };
      const { posts, threads } = await witnessedIn(deps.slack, channel, reading);
      // A job's status is the root of its thread, or a reply in a thread it joined (a mention).
      const statuses = posts.filter((p) => p.eventType === JOB_EVENT_TYPE);
      for (const ts of threads)
        statuses.push(...(await witnessedInThread(deps.slack, channel, ts, JOB_STATUS, waitOut)));
      for (const status of statuses) {
        if (limited()) break;
        const result = await healJob(deps, status, waitOut).catch((error: unknown) =>
          failed({ channel, ts: status.ts }, error),
        );
        if (result === 'healed') healed.jobs++;
      }
      // Newest first: the channel's last digest of each kind says how it is subscribed now.
      for (const kind of DIGEST_KINDS) {
        const digest = posts.find((p) => p.eventType === kind.eventType);
        if (!digest) continue;
        const set = await healSubscription(deps, digest, kind).catch((error: unknown) =>
          failed({ channel, ts: digest.ts }, error),
        );
        if (set) healed.subscriptions++;
      }
    } catch (error) {
      failed({ channel }, error);
    }
    if (healed.failed > before) continue;
    healed.channels++;
    done.add(doneKey(channel));
  }
  try {
    healed.schedulers = await adoptDigests(engine, [deps], DIGEST_KINDS);
  } catch (error) {
    failed({ item: 'schedulers' }, error);
  }
  return healed;
}

/** Two workspaces' counts together (the longer wait Slack asked for). */
export function added(a: Healed, b: Healed): Healed {
  const slackWaitMs = Math.max(a.slackWaitMs ?? 0, b.slackWaitMs ?? 0);
  return {
    channels: a.channels + b.channels,
    jobs: a.jobs + b.jobs,
    subscriptions: a.subscriptions + b.subscriptions,
    schedulers: a.schedulers + b.schedulers,
    failed: a.failed + b.failed,
    ...(slackWaitMs > 0 && { slackWaitMs }),
  };
}
