import { decodeSlackText, mentionedUsers } from './decode.js';
import { lookUpPerson, type PersonDeps } from './people.js';

/**
 * Slack wire text as the person meant it, with `<@U…>` as `@display name` (via `users.info`, cached in the
 * store). A name that cannot be looked up (no `users:read`, Slack down) stays `@U…`: the text still goes through.
 */
export async function decodeWithNames(deps: PersonDeps, text: string): Promise<string> {
  const mentioned = mentionedUsers(text);
  // Most instructions name nobody: no lookup to set up (every /agent decodes its instruction so).
  return decodeSlackText(text, mentioned.length > 0 ? await displayNames(deps, mentioned) : undefined);
}

/** Display names of `ids` (cached); ids that cannot be looked up are left out. */
export async function displayNames(deps: PersonDeps, ids: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  await Promise.all(
    [...new Set(ids)].map(async (id) => {
      const name = await displayName(deps, id);
      if (name) names.set(id, name);
    }),
  );
  return names;
}

async function displayName(deps: PersonDeps, userId: string): Promise<string | undefined> {
  return (await lookUpPerson(deps, userId))?.name;
}
