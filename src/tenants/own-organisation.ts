import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from '../log.js';
import { enterpriseThrough, isExternal, requesterOf } from '../slack/access.js';
import type { Installations } from './installations.js';

/**
 * A person acts with their own organisation's installation. In a Slack Connect channel where several
 * organisations installed the app, Slack delivers each event once, through one installation of its choosing
 * (`authorizations`), which need not be the author's. When the author's own workspace has an installation, the
 * request is handled as theirs: its team, bot and token, and so its Mintlify connection, store and jobs (a job's
 * thread is the workspace's that started it). Without one, the person stays external to the installation Slack
 * named, and the access rule decides (`AGENT_ALLOW_EXTERNAL`). Registered before the access rule, many-workspace
 * mode only. An org-wide install is not looked up: the event names the author's team, not their enterprise.
 */
export function ownOrganisation(
  installations: Pick<Installations, 'read'>,
  log: Logger,
): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const { body, context, next } = args;
    const requester = requesterOf(body);
    const { teamId } = requester;
    if (!teamId || !(await isExternal(requester, context, enterpriseThrough(args.client, log)))) return next();
    const own = await installations.read(teamId).catch((error: unknown) => {
      log.warn('slack.installation_unreadable', { team: teamId, op: 'own_organisation', error });
      return undefined;
    });
    if (own && !own.isEnterpriseInstall) {
      log.debug('slack.own_installation', { named: context.teamId, team: teamId });
      Object.assign(context, {
        teamId,
        enterpriseId: own.enterprise?.id,
        isEnterpriseInstall: false,
        botToken: own.bot.token,
        botUserId: own.bot.userId,
        botId: own.bot.id,
      });
    }
    await next();
  };
}
