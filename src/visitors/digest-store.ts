import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { ScheduleSchema } from './digest-schedule.js';

/**
 * Digest subscriptions, one per channel, in the store (so every replica sees them). Each lives under its own key;
 * the list of subscribed channels is one more key, changed only under a short claim so replicas cannot lose
 * each other's updates.
 */

export const SubscriptionSchema = z.object({
  channel: z.string(),
  project: z.string(),
  schedule: ScheduleSchema,
  createdBy: z.string(),
  createdAt: z.number(),
});
export type Subscription = z.infer<typeof SubscriptionSchema>;

const PREFIX = 'visitors:digest:v1';
const INDEX = `${PREFIX}:channels`;
const LOCK = `${PREFIX}:lock`;
const LOCK_TTL_MS = 5_000;
const ChannelsSchema = z.array(z.string());

const subKey = (channel: string) => `${PREFIX}:sub:${channel}`;

export async function getSubscription(deps: Deps, channel: string): Promise<Subscription | undefined> {
  const parsed = SubscriptionSchema.safeParse(await deps.store.kv.get(subKey(channel)));
  return parsed.success ? parsed.data : undefined;
}

export async function listSubscriptions(deps: Deps): Promise<Subscription[]> {
  const channels = ChannelsSchema.safeParse(await deps.store.kv.get(INDEX));
  if (!channels.success) return [];
  const subs = await Promise.all(channels.data.map((channel) => getSubscription(deps, channel)));
  return subs.filter((s): s is Subscription => s !== undefined);
}

export async function saveSubscription(deps: Deps, subscription: Subscription): Promise<void> {
  await deps.store.kv.set(subKey(subscription.channel), subscription);
  await updateIndex(deps, (channels) => [...new Set([...channels, subscription.channel])]);
}

/** Ends a channel's subscription. True when there was one. */
export async function deleteSubscription(deps: Deps, channel: string): Promise<boolean> {
  const existed = await deps.store.kv.delete(subKey(channel));
  await updateIndex(deps, (channels) => channels.filter((c) => c !== channel));
  return existed;
}

async function updateIndex(deps: Deps, change: (channels: string[]) => string[]): Promise<void> {
  const owner = `${deps.instanceId}:${Math.random()}`;
  for (let attempt = 0; !(await deps.store.claims.claim(LOCK, owner, LOCK_TTL_MS)); attempt++) {
    if (attempt > 100) throw new Error('digest subscriptions are locked');
    await delay(20);
  }
  try {
    const current = ChannelsSchema.safeParse(await deps.store.kv.get(INDEX));
    await deps.store.kv.set(INDEX, change(current.success ? current.data : []));
  } finally {
    await deps.store.claims.release(LOCK, owner);
  }
}
