import type { Deps } from '../../deps.js';
import { slackErrorCode } from '../../slack/errors.js';

/** What `users.info` says of a person's roles (the user object; `enterprise_user` on Enterprise Grid). */
interface Roles {
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  enterprise_user?: { is_admin?: boolean; is_owner?: boolean };
}

/**
 * Whether Slack's roles let a person manage the connection: an org-wide install's is the organisation's, so only
 * its admins and owners (`enterprise_user`) may; a workspace's, its admins and owners (and the organisation's).
 */
export function rolesAllow(user: Roles | undefined, orgWide: boolean): boolean {
  const org = user?.enterprise_user;
  const orgAdmin = !!(org?.is_admin || org?.is_owner);
  return orgWide ? orgAdmin : orgAdmin || !!(user?.is_admin || user?.is_owner || user?.is_primary_owner);
}

/**
 * Who may connect, change or disconnect Mintlify in a workspace: its admins and owners, as Slack says now
 * (`users.info`, asked at each step, never remembered), and its steward (the person who connected it or, before
 * anyone did, who installed the app first). Installing the app again gives nobody a right. An org-wide install
 * serves every workspace of the organisation: only the organisation's admins and owners manage it.
 */
export async function mayManage(
  deps: Pick<Deps, 'slack' | 'connection' | 'log' | 'workspace'>,
  userId: string,
): Promise<boolean> {
  if (!deps.connection) return false;
  const orgWide = !!deps.workspace.enterpriseId;
  if (!orgWide && userId === deps.connection.steward?.userId) return true;
  try {
    const { user } = await deps.slack.users.info({ user: userId });
    return rolesAllow(user, orgWide);
  } catch (error) {
    deps.log.warn('slack.users_info_failed', { op: 'connect.permission', slack_error: slackErrorCode(error) });
    return false;
  }
}
