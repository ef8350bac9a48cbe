import { JOB_EVENT_TYPE } from '../agent/index.js';
import type { Deps } from '../deps.js';
import { DIGEST_KINDS } from '../digests.js';
import type { QueueInspector } from '../queue/engine.js';
import type { DigestMachinery } from '../visitors/index.js';
import { healJob, type JobHealing } from './jobs.js';
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
}

/** The visitors' digest schedulers and subscriptions, given by the composition (`digestMachinery`). */
export type DigestHealing = Pick<DigestMachinery, 'adoptDigests' | 'healSubscription'>;

export const NOTHING_HEALED: Healed = { channels: 0, jobs: 0, subscriptions: 0, schedulers: 0 };

/**
 * Rebuilds what one workspace's store lost from the witnesses: each channel the bot is in is read back (within the
 * job age limit, and far enough for a monthly digest), with the threads the bot replied in or was mentioned at the
 * start of. Each job status message whose record is missing is bound and polled again (`healJob`), each channel
 * whose subscription of a kind is missing gets it back from its newest digest of that kind, and every subscription without a scheduler
 * gets one. `stillOurs` is asked between channels (the caller's claim).
 */
export async function healWorkspace(
  deps: Deps,
  engine: QueueInspector,
  { adoptDigests, healSubscription }: DigestHealing,
  stillOurs: () => Promise<void>,
): Promise<Healed> {
  // Slack's `ts` is wall-clock time: the window is on the same clock, whatever clock features read.
  const jobsSinceMs = Date.now() - deps.config.jobMaxAgeMs;
  const sinceMs = Math.min(jobsSinceMs, Date.now() - DIGEST_LOOKBACK_MS);
  const botUserId = String((await deps.slack.auth.test()).user_id ?? '');
  const threadsOf = { botUserId, sinceMs: jobsSinceMs };
  const healed = { ...NOTHING_HEALED };
  for (const channel of await memberChannels(deps.slack)) {
    await stillOurs();
    const { posts, threads } = await witnessedIn(deps.slack, channel, { sinceMs, eventTypes: WITNESSED, threadsOf });
    healed.channels++;
    // A job's status is the root of its thread, or a reply in a thread it joined (a mention).
    const statuses = posts.filter((p) => p.eventType === JOB_EVENT_TYPE);
    for (const ts of threads) statuses.push(...(await witnessedInThread(deps.slack, channel, ts, JOB_STATUS)));
    const jobs: JobHealing[] = [];
    for (const status of statuses) jobs.push(await healJob(deps, status));
    healed.jobs += jobs.filter((result) => result === 'healed').length;
    // Newest first: the channel's last digest of each kind says how it is subscribed now.
    for (const kind of DIGEST_KINDS) {
      const digest = posts.find((p) => p.eventType === kind.eventType);
      if (digest && (await healSubscription(deps, digest, kind))) healed.subscriptions++;
    }
  }
  healed.schedulers = await adoptDigests(engine, [deps], DIGEST_KINDS);
  return healed;
}

/** Two workspaces' counts together. */
export function added(a: Healed, b: Healed): Healed {
  return {
    channels: a.channels + b.channels,
    jobs: a.jobs + b.jobs,
    subscriptions: a.subscriptions + b.subscriptions,
    schedulers: a.schedulers + b.schedulers,
  };
}
