import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { keys } from '../../store/keys.js';
import { changeList, readList } from '../../store/lists.js';
import { type DigestKind, VISITORS_DIGEST } from './kind.js';
import { CADENCES, type Cadence, ScheduleSchema } from './schedule.js';

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
  /** With an org-wide install: the organisation's workspace it was set up in, whose work its occurrences are. */
  team: z.string().optional(),
});
export type Subscription = z.infer<typeof SubscriptionSchema>;

const indexOf = ({ feature }: DigestKind) => ({
  key: keys.digestChannels(feature),
  lock: keys.digestChannelsLock(feature),
});

const subKey = (channel: string, { feature }: DigestKind) => keys.digestSubscription(channel, feature);

/** Subscriptions live in the store; the index changes under a claim owned by this instance. */
export type SubscriptionDeps = Pick<Deps, 'store' | 'instanceId'>;

export async function getSubscription(
  deps: SubscriptionDeps,
  channel: string,
  kind = VISITORS_DIGEST,
): Promise<Subscription | undefined> {
  const stored = await readSubscription(deps, channel, kind);
  return stored && 'subscription' in stored ? stored.subscription : undefined;
}

/** What can still be read of a subscription that no longer reads whole: who set it up and its cadence. */
const RemainsSchema = z.object({
  createdBy: z.string().optional().catch(undefined),
  schedule: z.object({ cadence: z.enum(CADENCES).optional().catch(undefined) }).catch({}),
});

/**
 * The channel's subscription as stored: none, one that reads, or one that no longer does (written by an older
 * release, or with a zone no longer known), with why and what is left of it to tell its subscriber.
 */
export async function readSubscription(
  deps: SubscriptionDeps,
  channel: string,
  kind = VISITORS_DIGEST,
): Promise<
  | { subscription: Subscription }
  | { unreadable: string; createdBy?: string | undefined; cadence?: Cadence | undefined }
  | undefined
> {
  const stored = await deps.store.kv.get(subKey(channel, kind));
  if (stored === undefined || stored === null) return undefined;
  const parsed = SubscriptionSchema.safeParse(stored);
  if (parsed.success) return { subscription: parsed.data };
  const remains = RemainsSchema.safeParse(stored);
  const { createdBy, schedule } = remains.success ? remains.data : { createdBy: undefined, schedule: {} };
  return { unreadable: z.prettifyError(parsed.error), createdBy, cadence: schedule.cadence };
}

export async function listSubscriptions(deps: SubscriptionDeps, kind = VISITORS_DIGEST): Promise<Subscription[]> {
  return (await storedSubscriptions(deps, kind)).flatMap(({ stored }) =>
    'subscription' in stored ? [stored.subscription] : [],
  );
}

/** Every subscription stored for a channel of the index, as it reads (`readSubscription`): those that no longer read too. */
export async function storedSubscriptions(deps: SubscriptionDeps, kind = VISITORS_DIGEST) {
  const channels = await readList(deps.store, indexOf(kind));
  const read = await Promise.all(
    channels.map(async (channel) => ({ channel, stored: await readSubscription(deps, channel, kind) })),
  );
  return read.flatMap(({ channel, stored }) => (stored ? [{ channel, stored }] : []));
}

export async function saveSubscription(
  deps: SubscriptionDeps,
  subscription: Subscription,
  kind = VISITORS_DIGEST,
): Promise<void> {
  await deps.store.kv.set(subKey(subscription.channel, kind), subscription);
  await updateIndex(deps, kind, (channels) => [...new Set([...channels, subscription.channel])]);
}

/** Ends a channel's subscription. True when there was one. */
export async function deleteSubscription(
  deps: SubscriptionDeps,
  channel: string,
  kind = VISITORS_DIGEST,
): Promise<boolean> {
  const existed = await deps.store.kv.delete(subKey(channel, kind));
  // Gone once its key is: a channel the index still names is skipped by every reader (the store guard counts it).
  await updateIndex(deps, kind, (channels) => channels.filter((c) => c !== channel)).catch(() => {});
  return existed;
}

function updateIndex(
  deps: SubscriptionDeps,
  kind: DigestKind,
  change: (channels: string[]) => string[],
): Promise<void> {
  return changeList(deps.store, indexOf(kind), deps.instanceId, change);
}

/** A period a digest went out for: its cadence and first day; `posting` while its post is not known to be in. */
const SentSchema = z.object({ cadence: z.enum(CADENCES), from: z.string(), posting: z.boolean().optional() });
export type Sent = Omit<z.infer<typeof SentSchema>, 'posting'>;
/** Longer than any period lasts, so a schedule changed within one still finds it. */
const SENT_KEPT_MS = 40 * 24 * 3_600_000;

/**
 * Remembers the period a channel's digest went out for, apart from its subscription: a new schedule set after the
 * digest went out (Monday 16:00 instead of 09:00) is due again for the same period, and must not post it twice.
 */
export async function markSent(deps: SubscriptionDeps, channel: string, sent: Sent, kind = VISITORS_DIGEST) {
  await deps.store.kv.set(keys.digestSent(channel, kind.feature), sent, SENT_KEPT_MS);
}

/** The period's post is about to be made: a run that dies before `markSent` leaves this, and the next looks first. */
export async function markPosting(deps: SubscriptionDeps, channel: string, sent: Sent, kind = VISITORS_DIGEST) {
  await deps.store.kv.set(keys.digestSent(channel, kind.feature), { ...sent, posting: true }, SENT_KEPT_MS);
}

/** The period the channel's digest last went out for; none when the store cannot say (only "Next:" reads it). */
export async function lastSent(deps: SubscriptionDeps, channel: string, kind = VISITORS_DIGEST) {
  const last = SentSchema.safeParse(
    await deps.store.kv.get(keys.digestSent(channel, kind.feature)).catch(() => undefined),
  );
  return last.success && !last.data.posting ? { cadence: last.data.cadence, from: last.data.from } : undefined;
}

/** Whether the period went out (`sent`), or its post was begun and not known to be in (`posting`). */
export async function sentState(
  deps: SubscriptionDeps,
  channel: string,
  sent: Sent,
  kind = VISITORS_DIGEST,
): Promise<'sent' | 'posting' | undefined> {
  const last = SentSchema.safeParse(await deps.store.kv.get(keys.digestSent(channel, kind.feature)));
  if (!last.success || last.data.cadence !== sent.cadence || last.data.from !== sent.from) return undefined;
  return last.data.posting ? 'posting' : 'sent';
}
