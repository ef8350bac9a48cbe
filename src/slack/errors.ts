/** The Slack Web API error string (`not_in_channel`, `ratelimited`, …) of a failed call, if it has one. */
export function slackErrorCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  if (typeof data?.error === 'string') return data.error;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Errors that mean the bot is not in the conversation, which the user can fix by inviting it. */
export function isNotInChannel(error: unknown): boolean {
  const code = slackErrorCode(error);
  return code === 'not_in_channel' || code === 'channel_not_found' || code === 'is_archived';
}
