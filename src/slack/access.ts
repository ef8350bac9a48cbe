import type { AnyMiddlewareArgs, Context, Middleware } from '@slack/bolt';

/** Who may use the agent, and where: empty lists mean everyone, everywhere. */
export interface AccessRule {
  allowedUsers: readonly string[];
  allowedChannels: readonly string[];
  /** People of another organisation (Slack Connect) may use it too; unset: they may not. */
  allowExternal?: boolean;
}

export type Verdict = { allowed: true } | { allowed: false; reason: 'user' | 'channel' | 'external' };

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
  if (external && !rule.allowExternal) return { allowed: false, reason: 'external' };
  if (rule.allowedUsers.length > 0 && !rule.allowedUsers.includes(userId)) return { allowed: false, reason: 'user' };
  if (rule.allowedChannels.length > 0 && !rule.allowedChannels.includes(channel)) {
    return { allowed: false, reason: 'channel' };
  }
  return { allowed: true };
}

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** The person and the conversation of any payload Slack sends. */
export function requesterOf(body: Record<string, unknown>): Requester {
  if (body.type === 'event_callback') {
    const event = (body.event ?? {}) as Record<string, unknown>;
    return { userId: str(event.user), channel: str(event.channel), teamId: str(event.user_team) ?? str(event.team) };
  }
  // A command reaches the install of the person's own workspace: it never comes from another organisation.
  if (typeof body.command === 'string') return { userId: str(body.user_id), channel: str(body.channel_id) };
  const user = body.user as { id?: unknown; team_id?: unknown } | undefined;
  const channel = body.channel as { id?: unknown } | undefined;
  const container = body.container as { channel_id?: unknown } | undefined;
  return { userId: str(user?.id), channel: str(channel?.id) ?? str(container?.channel_id), teamId: str(user?.team_id) };
}

/**
 * Whether the person is from another organisation than the workspace the request reached. An org-wide install
 * (Enterprise Grid) serves every workspace of its organisation, so only a team id outside it would tell, which the
 * payload does not say: there nobody is judged external.
 */
export function isExternal(teamId: string | undefined, context: Context): boolean {
  return !!teamId && !!context.teamId && !context.isEnterpriseInstall && teamId !== context.teamId;
}

const ACCESS = 'access';

/**
 * Puts the verdict for every request in `context.access`, before any listener runs. The surfaces the rule governs
 * (every agent door, turning a digest on or off) read it with `accessOf`; each answers a refusal its own way (a
 * command's ack, a modal's field error, a private note), and a message that does not concern the bot is never
 * answered at all. A request without a person or a conversation (a view submission names its channel in its own
 * metadata) gets no verdict here: its door applies `verdictFor` itself.
 */
export function accessMiddleware(rule: AccessRule): Middleware<AnyMiddlewareArgs> {
  return async ({ body, context, next }) => {
    const { userId, channel, teamId } = requesterOf(body as unknown as Record<string, unknown>);
    if (userId && channel) {
      context[ACCESS] = verdictFor(rule, { userId, channel, external: isExternal(teamId, context) });
    }
    await next();
  };
}

/** The verdict the middleware left for this request; refused when there was nobody or nowhere to judge. */
export function accessOf(context: Context): Verdict {
  return (context[ACCESS] as Verdict | undefined) ?? { allowed: false, reason: 'user' };
}
