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
  'apps.connections.open': connectionsOpen,
  'users.info': usersInfo,
};
