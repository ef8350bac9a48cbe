import type { AnyMiddlewareArgs, Context, Middleware } from '@slack/bolt';

/** Who may use the agent, and where: empty lists mean everyone, everywhere. */
export interface AccessRule {
  allowedUsers: readonly string[];
  allowedChannels: readonly string[];
}

export type Verdict = { allowed: true } | { allowed: false; reason: 'user' | 'channel' };

/** Who sent a request and from where, whatever its surface (command, event, click, shortcut). */
export interface Requester {
  userId?: string | undefined;
  channel?: string | undefined;
}

/** The rule, applied once: the only place the allow-lists are read. */
export function verdictFor(rule: AccessRule, { userId, channel }: { userId: string; channel: string }): Verdict {
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
    return { userId: str(event.user), channel: str(event.channel) };
  }
  if (typeof body.command === 'string') return { userId: str(body.user_id), channel: str(body.channel_id) };
  const user = body.user as { id?: unknown } | undefined;
  const channel = body.channel as { id?: unknown } | undefined;
  const container = body.container as { channel_id?: unknown } | undefined;
  return { userId: str(user?.id), channel: str(channel?.id) ?? str(container?.channel_id) };
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
    const { userId, channel } = requesterOf(body as unknown as Record<string, unknown>);
    if (userId && channel) context[ACCESS] = verdictFor(rule, { userId, channel });
    await next();
  };
}

/** The verdict the middleware left for this request; refused when there was nobody or nowhere to judge. */
export function accessOf(context: Context): Verdict {
  return (context[ACCESS] as Verdict | undefined) ?? { allowed: false, reason: 'user' };
}
