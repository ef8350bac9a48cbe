import { userObject } from '../people.js';
import { type Answer, type Handler, type MethodCall, ok, refuse } from './answer.js';

/**
 * `auth.test` for the token used: the workspace's bot, or for an org-wide token the organisation (its id as
 * `team_id`, its `url`, `is_enterprise_install: true`), which Bolt's installer keeps as the install's `enterpriseUrl`.
 */
function authTest({ tenant, org }: MethodCall): Answer {
  const ws = tenant.workspace;
  const who = { user: 'mintlify', user_id: ws.botUserId, bot_id: ws.botId };
  if (org) {
    return ok({
      url: `https://${org.domain}.enterprise.slack.com/`,
      team: org.name,
      team_id: org.id,
      ...who,
      enterprise_id: org.id,
      is_enterprise_install: true,
    });
  }
  return ok({
    url: `https://${ws.teamDomain}.slack.com/`,
    team: ws.teamName ?? ws.teamDomain,
    team_id: ws.teamId,
    ...who,
    ...(ws.enterpriseId && { enterprise_id: ws.enterpriseId }),
    is_enterprise_install: false,
  });
}

/** auth.teams.list's `limit`: 100 unless given, a positive integer no larger than 1000. */
const TEAMS_PAGE = { default: 100, max: 1_000 };

/**
 * `auth.teams.list` (docs.slack.dev reference, no scope needed): the workspaces an org-wide token may act in now,
 * `{ id, name }`, paged by `cursor`/`limit` with `response_metadata.next_cursor` (empty on the last page); a
 * workspace the install was taken out of (`team_access_revoked`) is not among them. A workspace's token lists its
 * own workspace.
 */
function authTeamsList({ args, tenant, org, slack }: MethodCall): Answer {
  const limit = args.limit === undefined ? TEAMS_PAGE.default : Number(args.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > TEAMS_PAGE.max) return refuse('invalid_limit');
  const served = org ? [...slack.tenants.values()].filter((t) => t.orgInstall === org) : [tenant];
  const cursor = args.cursor ? String(args.cursor) : '';
  const from = cursor
    ? Number(
        Buffer.from(cursor, 'base64url')
          .toString()
          .replace(/^team:/, ''),
      )
    : 0;
  if (!Number.isInteger(from) || from < 0 || from > served.length) return refuse('invalid_cursor');
  const page = served.slice(from, from + limit);
  const next = from + limit < served.length ? Buffer.from(`team:${from + limit}`).toString('base64url') : '';
  const teams = page.map((t) => ({ id: t.teamId, name: t.workspace.teamName ?? t.workspace.teamDomain }));
  return ok({ teams, response_metadata: { next_cursor: next } });
}

function connectionsOpen({ slack }: MethodCall): Answer {
  if (!slack.socketModeUrl) return refuse('not_allowed', { warning: 'no Socket Mode server attached' });
  return ok({ url: slack.socketModeUrl() });
}

/** `users.info`: the person (of this workspace, or of a Slack Connect organisation) at the stand-in's clock. */
function usersInfo({ args, tenant, slack }: MethodCall): Answer {
  const id = String(args.user);
  const found = slack.personIn(tenant, id);
  if (!found) return refuse('user_not_found');
  return ok({ user: userObject(found.user, found.teamId, tenant.workspace, slack.now(), found.enterpriseId) });
}

export const identityMethods: Record<string, Handler> = {
  'api.test': ({ args }) => ok({ args }),
  'auth.test': authTest,
  'auth.teams.list': authTeamsList,
  'apps.connections.open': connectionsOpen,
  'users.info': usersInfo,
};
