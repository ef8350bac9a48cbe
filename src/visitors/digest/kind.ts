import type { Cadence } from './schedule.js';

/**
 * What tells one feature's digests from another's (`/visitors`, `/insights`): their store keys, scheduler ids, the
 * task each occurrence runs, the metadata of their posts and the words that name them. The subscriptions, their
 * schedulers, their posting and their healing are the same machinery for every kind.
 */
export interface DigestKind {
  /** The feature whose digest it is: its store keys and log lines (`visitors.digest_posted`). */
  feature: 'visitors' | 'insights';
  /** Its scheduler ids start with this (`digest/C123` for the visitors', as before there were two kinds). */
  schedulerPrefix: string;
  /** The task each occurrence of its scheduler runs. */
  scheduledTask: string;
  /** `metadata.event_type` of its posts, so one whose answer was lost can be found again, and healed. */
  eventType: string;
  /** The cadences it may be subscribed at. */
  cadences: readonly Cadence[];
  /** Its slash command (`/visitors`): `… digest off` ends it. */
  command: '/visitors' | '/insights';
  /** How to subscribe, said after "no digest" and after a schedule that cannot be read. */
  help: string;
}

export const VISITORS_DIGEST: DigestKind = {
  feature: 'visitors',
  schedulerPrefix: 'digest',
  scheduledTask: 'visitors.scheduled_digest',
  eventType: 'mintlify_visitors_digest',
  cadences: ['daily', 'weekly', 'monthly'],
  command: '/visitors',
  help:
    '*Digests* post this channel’s visitors on a schedule, at your time of day: `/visitors digest weekly` (Mondays 09:00), ' +
    '`/visitors digest weekly fri 16:30`, `/visitors digest daily 08:00`, `/visitors digest monthly` (the 1st, 09:00). ' +
    '`/visitors digest` shows the subscription, `/visitors digest off` ends it.',
};
