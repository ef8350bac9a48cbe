import type { StandinUser, Workspace } from './workspace.js';

/** Slack's zone for people who never set one. */
const DEFAULT_TZ = 'America/Los_Angeles';

/** A zone at an instant, as Slack gives it: the name, its label ("Pacific Daylight Time") and the offset in seconds. */
export function timeZone(tz: string, at: number): { tz: string; tz_label: string; tz_offset: number } {
  const part = (timeZoneName: 'long' | 'longOffset') =>
    new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName })
      .formatToParts(at)
      .find((p) => p.type === 'timeZoneName')?.value ?? '';
  // "GMT+13:00", "GMT-07:00", or "GMT" itself at UTC.
  const [, sign = '+', hours = '0', minutes = '0'] = /GMT([+-])(\d{2}):(\d{2})/.exec(part('longOffset')) ?? [];
  const offset = (Number(hours) * 3600 + Number(minutes) * 60) * (sign === '-' ? -1 : 1);
  return { tz, tz_label: part('long'), tz_offset: offset };
}

/**
 * `users.info`'s user object (the user type reference): team, time zone for `at`, roles and guest flags. A person of
 * a Slack Connect organisation carries that organisation's `team_id`. On Enterprise Grid, `is_admin`/`is_owner` are
 * the workspace's roles and `enterprise_user.is_admin`/`is_owner` the organisation's.
 */
export function userObject(
  user: StandinUser,
  teamId: string,
  workspace: Workspace,
  at: number,
  enterpriseId = teamId === workspace.teamId ? workspace.enterpriseId : undefined,
) {
  const names = { real_name: user.realName, display_name: user.displayName };
  return {
    id: user.id,
    team_id: teamId,
    name: user.name,
    deleted: user.deleted ?? false,
    real_name: user.realName,
    ...timeZone(user.tz ?? DEFAULT_TZ, at),
    is_admin: user.isAdmin ?? false,
    is_owner: user.isOwner ?? false,
    is_primary_owner: user.isPrimaryOwner ?? false,
    is_restricted: user.isRestricted ?? false,
    is_ultra_restricted: user.isUltraRestricted ?? false,
    is_bot: user.isBot ?? false,
    is_app_user: false,
    updated: 1_700_000_000,
    profile: {
      ...names,
      real_name_normalized: user.realName,
      display_name_normalized: user.displayName,
      team: teamId,
      ...(user.isBot && user.id === workspace.botUserId && { bot_id: workspace.botId }),
    },
    ...(enterpriseId && {
      enterprise_user: {
        id: user.id,
        enterprise_id: enterpriseId,
        is_admin: user.isOrgAdmin ?? false,
        is_owner: user.isOrgOwner ?? false,
        teams: [teamId],
      },
    }),
  };
}
