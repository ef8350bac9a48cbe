/** The Slack Web API error string (`not_in_channel`, `ratelimited`, …) of a failed call, or the SDK's own code. */
export function slackErrorCode(error: unknown): string {
  const e = error as { data?: { error?: unknown }; code?: unknown } | undefined;
  if (typeof e?.data?.error === 'string') return e.data.error;
  if (typeof e?.code === 'string') return e.code;
  return 'unknown_error';
}

/** Errors that mean the bot is not in the conversation, which the user can fix by inviting it. */
export function isNotInChannel(error: unknown): boolean {
  return NOT_IN_CHANNEL.has(slackErrorCode(error));
}

export const NOT_IN_CHANNEL = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);
