import type { Deps } from '../../deps.js';
import type { DigestRequest } from '../requests.js';
import type { Schedule } from './schedule.js';
import { endSubscription, type SchedulerDeps, scheduleDigest } from './scheduler.js';
import { getSubscription, type Subscription, saveSubscription } from './store.js';

export type DigestResult =
  | { kind: 'shown'; subscription: Subscription | undefined }
  | { kind: 'ended'; existed: boolean }
  | { kind: 'subscribed'; schedule: Schedule };

/**
 * Shows, ends or sets the conversation's digest. Who may end or set one (the `/agent` allow-lists) is decided at
 * the door, before a request is made.
 */
export async function manageDigest(
  deps: SchedulerDeps & Pick<Deps, 'log' | 'now'>,
  { command, project, audience }: DigestRequest,
): Promise<DigestResult> {
  const { channel, userId } = audience;
  switch (command.kind) {
    case 'show':
      return { kind: 'shown', subscription: await getSubscription(deps, channel) };
    case 'off': {
      const existed = await endSubscription(deps, channel);
      deps.log.info('visitors.digest_unsubscribed', { user: userId, channel, existed });
      return { kind: 'ended', existed };
    }
    case 'subscribe': {
      const { schedule } = command;
      const subscription = { channel, project, schedule, createdBy: userId, createdAt: deps.now() };
      await saveSubscription(deps, subscription);
      await scheduleDigest(deps, subscription);
      deps.log.info('visitors.digest_subscribed', { user: userId, channel, cadence: schedule.cadence });
      return { kind: 'subscribed', schedule };
    }
  }
}
