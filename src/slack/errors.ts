/** A signed request sent again: its ack was sent, and it goes no further (`replays.ts`). Logged where it is found. */
export class ReplayedRequestError extends Error {
  override name = 'ReplayedRequestError';
  readonly code = 'slack_request_replayed';
}

/** The Slack Web API error string (`not_in_channel`, `ratelimited`, …) of a failed call, or the SDK's own code. */
export function slackErrorCode(error: unknown): string {
  const e = error as { data?: { error?: unknown }; code?: unknown; statusCode?: unknown } | undefined;
  if (typeof e?.data?.error === 'string') return e.data.error;
  if (e?.code === 'slack_webapi_http_error' && typeof e.statusCode === 'number') return `http_${e.statusCode}`;
  if (typeof e?.code === 'string') return e.code;
  return 'unknown_error';
}

/** Errors that mean the bot is not in the conversation, which the user can fix by inviting it. */
export function isNotInChannel(error: unknown): boolean {
  return NOT_IN_CHANNEL.has(slackErrorCode(error));
}

export const NOT_IN_CHANNEL = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);

/**
 * Slack's common error "Administrators have suspended the ability to post a message" (Enterprise Key Management): no
 * retry helps until they lift it. Among `POST_RESTRICTED`, with words of its own.
 */
export const POSTING_SUSPENDED = 'ekm_access_denied';

/**
 * Slack's refusals of a post that the conversation's posting settings decide (chat.postMessage's reference:
 * `restricted_action`, a workspace preference; `…_read_only_channel`, no post at all; `…_thread_only_channel`, no
 * top-level post; `…_non_threadable_channel`, no reply): trying again will not help.
 */
export const POST_RESTRICTED: ReadonlySet<string> = new Set([
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel',
  'restricted_action_non_threadable_channel',
  'posting_to_channel_denied',
  POSTING_SUSPENDED,
]);

/**
 * Slack's refusals of an upload that this workspace's settings or storage decide (files.getUploadURLExternal,
 * files.completeUploadExternal): trying again will not help until an admin changes them.
 */
export const FILES_REFUSED: ReadonlySet<string> = new Set([
  'file_uploads_disabled',
  'file_uploads_except_images_disabled',
  'file_type_not_allowed',
  'file_upload_size_restricted',
  'storage_limit_reached',
]);

/**
 * What a failed Slack call means for trying it again, decided once for every caller:
 * - `rate_limited`: Slack did nothing; try after its `Retry-After`.
 * - `transient`: a 5xx, a timeout, a dropped connection or Slack's own `internal_error`. Slack may have done it
 *   anyway (it can store a message and still answer 5xx), so a post must be looked for before it is retried.
 * - `misconfigured`: the token or its scopes are refused. Nothing works until an admin acts; retry slowly.
 * - `final`: this conversation or message can never take it (archived, bot removed, blocks refused, …).
 */
export type SlackFailure =
  | { kind: 'rate_limited'; code: string; retryAfterMs: number }
  | { kind: 'transient'; code: string }
  | { kind: 'misconfigured'; code: string }
  | { kind: 'final'; code: string };

/** A read for an earlier post that Slack cut short (`slack/witness.ts`): whether it was posted is not known yet. */
export const WITNESS_UNREAD = 'witness_unread';
/** Slack's documented transient errors: "it's possible some aspect of the operation succeeded". */
const TRANSIENT = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited',
  WITNESS_UNREAD,
]);
/** Slack's answers that mean this token will never work: an admin must change it (or reinstall the app). */
export const TOKEN_REFUSED: ReadonlySet<string> = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'team_disabled',
  'user_removed_from_team',
  'not_allowed_token_type',
]);
/**
 * An org-wide token refused in one of its organisation's workspaces: an org admin may have taken the install out of
 * it (`team_access_revoked`, an event that can be lost or not subscribed to), which `auth.teams.list` confirms.
 */
export const TEAM_ACCESS_NOT_GRANTED = 'team_access_not_granted';
/** The token or its scopes are refused: nothing works until an admin acts. */
const MISCONFIGURED: ReadonlySet<string> = new Set([...TOKEN_REFUSED, 'missing_scope']);

export function classifySlackError(error: unknown): SlackFailure {
  const e = error as { code?: unknown; retryAfter?: unknown } | undefined;
  const code = slackErrorCode(error);
  switch (e?.code) {
    case 'slack_webapi_rate_limited_error':
      return { kind: 'rate_limited', code: 'ratelimited', retryAfterMs: Math.max(1, Number(e.retryAfter) || 1) * 1000 };
    case 'slack_webapi_http_error':
    case 'slack_webapi_request_error':
      return { kind: 'transient', code };
  }
  if (TRANSIENT.has(code)) return { kind: 'transient', code };
  if (MISCONFIGURED.has(code)) return { kind: 'misconfigured', code };
  // Any other `ok: false` answer is Slack refusing this very call; repeating it would be refused again.
  return { kind: 'final', code };
}
