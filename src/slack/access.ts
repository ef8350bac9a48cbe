import type { AnyMiddlewareArgs, Context, Middleware } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';
import { slackErrorCode } from './errors.js';
import { payloadOf } from './payload.js';

/** Who may use the agent, and where: empty lists mean everyone, everywhere. */
export interface AccessRule {
  allowedUsers: readonly string[];
  allowedChannels: readonly string[];
  /** People of another organisation (Slack Connect) may use it too; unset: they may not. */
  allowExternal?: boolean;
}

export type Verdict = { allowed: true } | { allowed: false; reason: 'user' | 'channel' | 'external' };

/** The four verdicts, made once: every request gets one (frozen, as requests share them). */
const ALLOWED: Verdict = Object.freeze({ allowed: true });
const REFUSED = {
  user: Object.freeze({ allowed: false, reason: 'user' }),
  channel: Object.freeze({ allowed: false, reason: 'channel' }),
  external: Object.freeze({ allowed: false, reason: 'external' }),
} as const satisfies Record<string, Verdict>;

/** Who sent a request and from where, whatever its surface (command, event, click, shortcut). */
export interface Requester {
  userId?: string | undefined;
  channel?: string | undefined;
  /** The person's own workspace (`user_team`, else `team`), when the payload says. */
  teamId?: string | undefined;
}

/**
 * The rule, applied once: the only place the allow-lists are read. `external`: the person belongs to another
 * organisation than the workspace the app serves here (`appTeamId`); guests are members and follow the lists.
 */
export function verdictFor(
  rule: AccessRule,
  { userId, channel, external = false }: { userId: string; channel: string; external?: boolean },
): Verdict {
  if (external && !rule.allowExternal) return REFUSED.external;
  if (rule.allowedUsers.length > 0 && !rule.allowedUsers.includes(userId)) return REFUSED.user;
  if (rule.allowedChannels.length > 0 && !rule.allowedChannels.includes(channel)) return REFUSED.channel;
  return ALLOWED;
}

/** The person and the conversation of any payload Slack sends. */
export function requesterOf(body: unknown): Requester {
  const payload = payloadOf(body);
  if (payload.type === 'event_callback') {
    const { event } = payload;
    return { userId: event?.user, channel: event?.channel, teamId: event?.user_team ?? event?.team };
  }
  // A command reaches the install of the person's own workspace: it never comes from another organisation.
  if (payload.command !== undefined) return { userId: payload.user_id, channel: payload.channel_id };
  const { user, channel, container } = payload;
  return { userId: user?.id, channel: channel?.id ?? container?.channel_id, teamId: user?.team_id };
}

/** The Enterprise Grid organisation a person belongs to, if any (`users.info` → `enterprise_user.enterprise_id`). */
export type EnterpriseOf = (userId: string) => Promise<string | undefined>;

/**
 * Whether the person is from another organisation than the workspace the request reached (`context.teamId`).
 * Another workspace is another organisation, except on Enterprise Grid (`context.enterpriseId`, an org-wide
 * install's or one workspace's): there a person of another workspace is external only when Slack says they belong
 * to another enterprise, or to none; asked only then, and external when Slack does not say.
 */
export async function isExternal(requester: Requester, context: Context, enterpriseOf: EnterpriseOf): Promise<boolean> {
  if (!ofAnotherTeam(requester, context)) return false;
  if (!context.enterpriseId || !requester.userId) return true;
  return (await enterpriseOf(requester.userId)) !== context.enterpriseId;
}

/** Whether the person's own team is known and another than the request's workspace (only then may they be external). */
const ofAnotherTeam = ({ teamId }: Requester, context: Context) =>
  !!teamId && !!context.teamId && teamId !== context.teamId;

/** `EnterpriseOf` through the request's Web API client; `undefined` (so external) when Slack does not answer. */
export function enterpriseThrough(client: WebClient, log: Logger): EnterpriseOf {
  return async (userId) => {
    try {
      const { user } = await client.users.info({ user: userId });
      return user?.enterprise_user?.enterprise_id;
    } catch (error) {
      log.warn('slack.users_info_failed', { op: 'access.enterprise', slack_error: slackErrorCode(error) });
      return undefined;
    }
  };
}

const ACCESS = 'access';

/**
 * Events Slack sends naming the person but not their team, where it decides: `agent_session_stopped` (a Stop
 * pressed), `link_shared` (a docs link's readers are shown only to the workspace's people).
 */
const TEAMLESS_EVENTS = new Set(['agent_session_stopped', 'link_shared']);

/**
 * Whether the requester's team is asked of Slack: for an event that does not say it, where it decides (people of
 * another organisation are not allowed).
 */
function teamAsked(rule: AccessRule, requester: Requester, body: unknown): requester is Requester & { userId: string } {
  if (rule.allowExternal || requester.teamId || !requester.userId) return false;
  const { type, event } = payloadOf(body);
  return type === 'event_callback' && TEAMLESS_EVENTS.has(String(event?.type));
}

/** The requester with their team, asked of Slack (`users.info`). Slack not saying counts as another organisation's. */
async function withTeam(
  requester: Requester & { userId: string },
  { client, log }: { client: WebClient; log: Logger },
): Promise<Requester> {
  try {
    const { user } = await client.users.info({ user: requester.userId });
    return { ...requester, teamId: user?.team_id ?? UNKNOWN_TEAM };
  } catch (error) {
    log.warn('slack.users_info_failed', { op: 'access.team', slack_error: slackErrorCode(error) });
    return { ...requester, teamId: UNKNOWN_TEAM };
  }
}
const UNKNOWN_TEAM = 'unknown';

/**
 * The verdict for a form's submission, which the middleware cannot give (the form names its channel in its own
 * metadata): the submitter (`body.user`, with their own team) in `channel`, judged as every other request is, so a
 * person of another organisation is refused as one.
 */
export async function submissionVerdict(
  deps: { config: AccessRule; slack: WebClient; log: Logger },
  { body, context }: { body: { user: { id: string; team_id?: string | undefined } }; context: Context },
  channel: string,
): Promise<Verdict> {
  const userId = body.user.id;
  const requester = { userId, teamId: body.user.team_id };
  const external = await isExternal(requester, context, enterpriseThrough(deps.slack, deps.log));
  return verdictFor(deps.config, { userId, channel, external });
}

/**
 * Puts the verdict for every request in `context.access`, before any listener runs. The surfaces the rule governs
 * (every agent door, turning a digest on or off) read it with `accessOf`; each answers a refusal its own way (a
 * command's ack, a modal's field error, a private note), and a message that does not concern the bot is never
 * answered at all. A request without a person or a conversation (a view submission names its channel in its own
 * metadata) gets no verdict here: its door asks `submissionVerdict`.
 */
export function accessMiddleware(rule: AccessRule, log: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const { body, context, next } = args;
    let requester = requesterOf(body);
    // Slack is asked, and the asking built, only where it decides: on every request this ran before any listener.
    if (teamAsked(rule, requester, body)) requester = await withTeam(requester, { client: args.client, log });
    const { userId, channel } = requester;
    if (userId && channel) {
      const external =
        ofAnotherTeam(requester, context) &&
        (await isExternal(requester, context, enterpriseThrough(args.client, log)));
      context[ACCESS] = verdictFor(rule, { userId, channel, external });
    }
    await next();
  };
}

/** The verdict the middleware left for this request; refused when there was nobody or nowhere to judge. */
export function accessOf(context: Context): Verdict {
  return (context[ACCESS] as Verdict | undefined) ?? REFUSED.user;
}
