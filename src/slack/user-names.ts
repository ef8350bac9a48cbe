import type { webApi } from '@slack/bolt';
import type { Keyv } from 'keyv';
import type { Logger } from '../log.js';
import { keys } from '../store/keys.js';
import { decodeSlackText, mentionedUsers } from './decode.js';

/** Display names change rarely; a day keeps `users.info` calls (Tier 4) to one per person per day. */
const NAME_TTL_MS = 24 * 60 * 60 * 1000;

interface NameDeps {
  slack: webApi.WebClient;
  store: { kv: Keyv };
  log: Logger;
}

/**
 * Slack wire text as the person meant it, with `<@U…>` as `@display name` (via `users.info`, cached in the
 * store). A name that cannot be looked up (no `users:read`, Slack down) stays `@U…`: the text still goes through.
 */
export async function decodeWithNames(deps: NameDeps, text: string): Promise<string> {
  return decodeSlackText(text, await displayNames(deps, mentionedUsers(text)));
}

/** Display names of `ids` (cached); ids that cannot be looked up are left out. */
export async function displayNames(deps: NameDeps, ids: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  await Promise.all(
    [...new Set(ids)].map(async (id) => {
      const name = await displayName(deps, id);
      if (name) names.set(id, name);
    }),
  );
  return names;
}

async function displayName({ slack, store, log }: NameDeps, userId: string): Promise<string | undefined> {
  const key = keys.userName(userId);
  try {
    const cached = await store.kv.get<string>(key);
    if (cached) return cached;
  } catch {
    // The store is only a cache here: ask Slack.
  }
  try {
    const { user } = await slack.users.info({ user: userId });
    const name = user?.profile?.display_name || user?.real_name || user?.name;
    if (name) await store.kv.set(key, name, NAME_TTL_MS).catch(() => {});
    return name;
  } catch (error) {
    log.warn('slack.user_name_unavailable', { user: userId, error });
    return undefined;
  }
}
