import type { Deps } from '../../deps.js';
import { VISITORS_DIGEST } from './kind.js';
import { subscriptionFromMetadata } from './metadata.js';
import type { SchedulerDeps } from './scheduler.js';
import { getSubscription, saveSubscription } from './store.js';

/**
 * A channel's subscription set up again from its last digest post's metadata, when the store lost it (a
 * subscription still stored wins: it may have been changed since). True when it was set up; its scheduler comes
 * with the others' (`adoptDigests`).
 */
export async function healSubscription(
  deps: SchedulerDeps & Pick<Deps, 'projects' | 'log'>,
  post: { channel: string; payload: unknown },
  kind = VISITORS_DIGEST,
): Promise<boolean> {
  const subscription = subscriptionFromMetadata(post.payload, post.channel);
  if (!subscription || !deps.projects.knows(subscription.project)) return false;
  if (await getSubscription(deps, post.channel, kind)) return false;
  await saveSubscription(deps, subscription, kind);
  deps.log.warn(`${kind.feature}.digest_healed`, { channel: post.channel, cadence: subscription.schedule.cadence });
  return true;
}
