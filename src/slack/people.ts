import type { WebClient } from '@slack/web-api';
import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { keys } from '../store/keys.js';

/** Names and zones change rarely; a day keeps `users.info` calls (Tier 4) to one per person per day. */
const PERSON_TTL_MS = 24 * 60 * 60 * 1000;

export interface PersonDeps {
  slack: WebClient;
  store: { kv: Keyv };
  log: Logger;
}

/** What the app reads about a person from `users.info`: the name it shows, their IANA time zone, their team. */
const PersonSchema = z.object({
  name: z.string().optional(),
  tz: z.string().optional(),
  teamId: z.string().optional(),
});
export type Person = z.infer<typeof PersonSchema>;

/**
 * The person behind `userId`: the store's copy, else `users.info` (then cached). Undefined when Slack cannot say
 * (no `users:read`, Slack down): callers fall back to `@U…` and UTC. `fresh` asks Slack even when a copy is kept,
 * for what is kept longer than the copy is (a digest's zone).
 */
export async function lookUpPerson(
  { slack, store, log }: PersonDeps,
  userId: string,
  fresh = false,
): Promise<Person | undefined> {
  const key = keys.person(userId);
  try {
    const cached = fresh ? undefined : PersonSchema.safeParse(await store.kv.get(key));
    if (cached?.success) return cached.data;
  } catch {
    // The store is only a cache here: ask Slack.
  }
  try {
    const { user } = await slack.users.info({ user: userId });
    const name = user?.profile?.display_name || user?.real_name || user?.name;
    const person: Person = {
      ...(name && { name }),
      ...(user?.tz && { tz: user.tz }),
      ...(user?.team_id && { teamId: user.team_id }),
    };
    // the store guard counts the failure; uncached, the person is asked of Slack again.
    if (name || person.tz) await store.kv.set(key, person, PERSON_TTL_MS).catch(() => {});
    return person;
  } catch (error) {
    log.warn('slack.user_unavailable', { user: userId, error });
    return undefined;
  }
}
