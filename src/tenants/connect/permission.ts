import type { Deps } from '../../deps.js';
import { slackErrorCode } from '../../slack/errors.js';

/**
 * Who may connect, change or disconnect Mintlify in a workspace: the person who installed the app, and the
 * workspace's (or organisation's) admins and owners, as Slack says now (`users.info`, asked at each change).
 */
export async function mayManage(deps: Pick<Deps, 'slack' | 'connection' | 'log'>, userId: string): Promise<boolean> {
  if (!deps.connection) return false;
  if (userId === deps.connection.installerId) return true;
  try {
    const { user } = await deps.slack.users.info({ user: userId });
    const org = user?.enterprise_user;
    return !!(user?.is_admin || user?.is_owner || user?.is_primary_owner || org?.is_admin || org?.is_owner);
  } catch (error) {
    deps.log.warn('slack.users_info_failed', { op: 'connect.permission', slack_error: slackErrorCode(error) });
    return false;
  }
}
