import type { AuthTeamsListResponse, WebClient } from '@slack/web-api';
import { slackErrorCode } from './errors.js';

/** `auth.teams.list` does not list the workspace. */
export const NOT_LISTED = 'not_listed';

/** Each token's `auth.teams.list`, asked once (Tier 2: an event may name many workspaces). */
export type TeamLists = (token: string | undefined) => Promise<Set<string>>;

/** Asks `auth.teams.list` once per token (the client's own when unset) for as long as it is kept. */
export function teamLists(slack: WebClient): TeamLists {
  const asked = new Map<string, Promise<Set<string>>>();
  return (token) => {
    const key = token ?? '';
    const list = asked.get(key) ?? reachable(slack, token);
    asked.set(key, list);
    return list;
  };
}

/**
 * The workspaces an org-wide token reaches now, every page (docs.slack.dev reference: no scope needed, `limit` up to
 * 1000, `response_metadata.next_cursor`); a workspace's token lists its own.
 */
async function reachable(slack: WebClient, token: string | undefined): Promise<Set<string>> {
  const teams = new Set<string>();
  for await (const page of slack.paginate('auth.teams.list', { limit: 1_000, ...(token && { token }) })) {
    for (const team of (page as AuthTeamsListResponse).teams ?? []) if (team.id) teams.add(team.id);
  }
  return teams;
}

/** `undefined` when `auth.teams.list` lists `teamId` for `token`, else `not_listed`, or Slack's refusal. */
export async function unlisted(lists: TeamLists, token: string | undefined, teamId: string) {
  try {
    return (await lists(token)).has(teamId) ? undefined : NOT_LISTED;
  } catch (error) {
    return slackErrorCode(error);
  }
}
