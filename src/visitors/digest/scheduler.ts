import type { Deps } from '../../deps.js';
import type { LaneSchedule as EngineSchedule, QueueInspector } from '../../queue/engine.js';
import type { Message } from '../../slack/message.js';
import { installationOf } from '../../workspace-ref.js';
import { UTC } from '../../zone.js';
import { type DigestKind, VISITORS_DIGEST } from './kind.js';
import { digestUnreadableNote } from './messages.js';
import { type Cadence, cronPattern } from './schedule.js';
import {
  deleteSubscription,
  listSubscriptions,
  type Subscription,
  type SubscriptionDeps,
  storedSubscriptions,
} from './store.js';

/**
 * Each subscription has a job scheduler on the `digests` lane, on its cron in its zone: the engine makes one job
 * per occurrence whatever the number of instances (BullMQ on Redis), so no claim of ours is needed.
 */

export type SchedulerDeps = SubscriptionDeps & Pick<Deps, 'lanes' | 'workspace' | 'digestEveryMs'>;

/** `digest/C123` (`insights-digest/C123`…), or `digest/T123/C123` for one of the workspaces an app serving many has. */
const schedulerId = (deps: Pick<Deps, 'workspace'>, channel: string, kind: DigestKind) =>
  [kind.schedulerPrefix, installationOf(deps.workspace), channel].filter(Boolean).join('/');

/**
 * Creates or replaces the subscription's scheduler: each occurrence runs its kind's scheduled task, as the work of
 * the workspace it was set up in (with an org-wide install, its `team`: taking the install out of it ends it).
 */
export async function scheduleDigest(
  deps: SchedulerDeps,
  { channel, schedule, team }: Subscription,
  kind = VISITORS_DIGEST,
): Promise<void> {
  const when: EngineSchedule = deps.digestEveryMs
    ? { everyMs: deps.digestEveryMs }
    : { cron: cronPattern(schedule), tz: schedule.tz ?? UTC };
  const { enterpriseId } = deps.workspace;
  const workspace = enterpriseId && team ? { teamId: team, enterpriseId } : deps.workspace;
  const envelope = { kind: kind.scheduledTask, workspace, data: { channel } };
  await deps.lanes.tasks.digests.schedule(schedulerId(deps, channel, kind), when, envelope);
}

/** Removes the channel's scheduler. One left behind is harmless: its next occurrence finds no subscription and ends. */
export async function unscheduleDigest(deps: SchedulerDeps, channel: string, kind = VISITORS_DIGEST): Promise<void> {
  await deps.lanes.tasks.digests.unschedule(schedulerId(deps, channel, kind));
}

/** Ends a channel's subscription, then its scheduler. True when there was a subscription. */
export async function endSubscription(deps: SchedulerDeps, channel: string, kind = VISITORS_DIGEST): Promise<boolean> {
  const existed = await deleteSubscription(deps, channel, kind);
  await unscheduleDigest(deps, channel, kind);
  return existed;
}

/** Ends every subscription of the workspace, of each kind, and its scheduler (the workspace removed the app). */
export async function endDigests(deps: SchedulerDeps, kinds: readonly DigestKind[]): Promise<void> {
  for (const kind of kinds) {
    for (const { channel } of await listSubscriptions(deps, kind)) await endSubscription(deps, channel, kind);
  }
}

/** What ending a subscription says, and to whom. */
export type EndingDeps = SchedulerDeps & Pick<Deps, 'slack' | 'replies' | 'log'>;

/**
 * A subscription stored in a form this release no longer reads (an older release wrote it, or its zone is no longer
 * known) has ended: said to operators, and once to whoever set it up (in the channel when that cannot be read). Said
 * only by the run whose delete removed it, so two instances (or a restart) that read it never say it twice.
 */
export async function endUnreadable(
  deps: EndingDeps,
  kind: DigestKind,
  channel: string,
  {
    unreadable,
    createdBy,
    cadence,
  }: { unreadable: string; createdBy?: string | undefined; cadence?: Cadence | undefined },
): Promise<void> {
  if (!(await endSubscription(deps, channel, kind))) return;
  const reason = 'its stored subscription no longer reads';
  deps.log.warn(`${kind.feature}.digest_ended`, { channel, reason, problem: unreadable });
  await tellEnded(deps, kind, { channel, createdBy }, digestUnreadableNote(channel, cadence, kind));
}

/**
 * Tells whoever set up a digest that ended, in a DM; in its channel when the record no longer says who, or their DM
 * cannot be reached (deactivated, say): the channel would otherwise never learn why its digest stopped.
 */
export async function tellEnded(
  deps: EndingDeps,
  kind: DigestKind,
  { channel, createdBy }: { channel: string; createdBy?: string | undefined },
  note: Message,
): Promise<void> {
  if (createdBy && (await deps.replies.direct(createdBy, note))) return;
  await deps.slack.chat
    .postMessage({ channel, ...note })
    .catch((error: unknown) => deps.log.warn(`${kind.feature}.digest_ended_note_failed`, { channel, error }));
}

/**
 * Subscriptions stored by the release that ran digests on its own tick (or whose scheduler a loss of the store
 * took) have no scheduler yet: they get one at start. Those that have one keep it (replacing it could move an
 * occurrence that is due), so this is idempotent. One that no longer reads ends here, said once (`endUnreadable`):
 * without a scheduler nothing else would ever read it.
 */
export async function adoptDigests(
  engine: QueueInspector,
  workspaces: EndingDeps[],
  kinds: readonly DigestKind[],
): Promise<number> {
  const scheduled = new Set((await engine.schedules('digests')).map((s) => s.id));
  let adopted = 0;
  for (const deps of workspaces) {
    for (const kind of kinds) {
      for (const { channel, stored } of await storedSubscriptions(deps, kind)) {
        if ('unreadable' in stored) await endUnreadable(deps, kind, channel, stored);
        else if (!scheduled.has(schedulerId(deps, channel, kind))) {
          await scheduleDigest(deps, await withWorkspace(deps, stored.subscription, kind), kind);
          adopted++;
        }
      }
    }
  }
  return adopted;
}

/**
 * A subscription an older release stored under an org-wide install names no workspace: the channel's is asked of
 * Slack (`context_team_id`), so the scheduler rebuilt for it runs as that workspace's work and ends when the
 * organisation's install is taken out of it. The record is left as it is (a change made meanwhile must not be
 * overwritten); when Slack cannot say, the scheduler is the organisation's, as before, and that is logged.
 */
async function withWorkspace(deps: EndingDeps, subscription: Subscription, kind: DigestKind): Promise<Subscription> {
  if (!deps.workspace.enterpriseId || subscription.team) return subscription;
  const { channel } = subscription;
  const team = await deps.slack.conversations.info({ channel }).then(
    (info) => info.channel?.context_team_id,
    (error: unknown) => deps.log.warn(`${kind.feature}.digest_workspace_unknown`, { channel, error }),
  );
  return team ? { ...subscription, team } : subscription;
}
