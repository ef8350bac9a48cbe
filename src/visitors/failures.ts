import type { ServiceFailure } from '../mintlify/failure.js';
import { FILES_REFUSED } from '../slack/errors.js';
import type { ReportQuery } from './date-range.js';
import { chartCopy, errorCopy, exportCopy, refusalText, UNKNOWN_PROJECT } from './messages.js';

/** Why a piece of visitors work was not done, as its use case returns it; `code`s are Slack's error strings. */
export type Failed =
  /** The analytics service gave no page. */
  | { ok: false; reason: 'fetch_failed'; failure: ServiceFailure }
  /** An export of the same range is already running in the conversation. */
  | { ok: false; reason: 'busy' }
  /** Slack refused a post (or a shared file) in the conversation. */
  | { ok: false; reason: 'post_failed'; code: string }
  /** Slack refused the CSV upload into the export's thread (`retryAfterMs`: its 429, longer than the client waits). */
  | { ok: false; reason: 'upload_failed'; code: string; retryAfterMs?: number }
  /** Slack refused the chart for the person's DM (`retryAfterMs` as for `upload_failed`). */
  | { ok: false; reason: 'dm_failed'; code: string; retryAfterMs?: number }
  /** Slack rate-limited a post (429): it did nothing, and can take it after `retryAfterMs`. */
  | { ok: false; reason: 'slack_busy'; retryAfterMs: number }
  /** The app began to stop (a deploy, a restart) before the work finished. */
  | { ok: false; reason: 'restarting' };

export type FailedFor<Reason extends Failed['reason']> = Extract<Failed, { reason: Reason }>;

/**
 * What the person is told privately when work failed: the one place failures become words (`command` re-runs it;
 * `channel` is where the work was to be posted).
 */
export function failedText(failed: Failed, query: ReportQuery, command: string, channel: string): string {
  switch (failed.reason) {
    case 'fetch_failed':
      return serviceFailureText(failed.failure, command);
    case 'busy':
      return exportCopy.busy;
    case 'post_failed':
      return refusalText(failed.code, channel) ?? errorCopy.postFailed(failed.code);
    case 'upload_failed':
      if (failed.retryAfterMs !== undefined) return errorCopy.slackBusyFile(failed.retryAfterMs);
      return refusalText(failed.code, channel) ?? exportCopy.uploadFailed(failed.code);
    case 'dm_failed':
      if (failed.retryAfterMs !== undefined) return errorCopy.slackBusyFile(failed.retryAfterMs);
      return FILES_REFUSED.has(failed.code) ? errorCopy.filesRefused(failed.code) : chartCopy.uploadFailed(failed.code);
    case 'slack_busy':
      return errorCopy.slackBusy(failed.retryAfterMs);
    case 'restarting':
      return exportCopy.restarting(query);
  }
}

/** The sentence for the service's answer; "try again" ones carry the exact command to re-run. */
function serviceFailureText(failure: ServiceFailure, command: string): string {
  switch (failure.code) {
    case 'refused':
      return errorCopy.invalidRequest(failure.message, failure.details);
    case 'unavailable':
      return errorCopy.unavailable(command);
    case 'not_found':
      return UNKNOWN_PROJECT;
    case 'rate_limited':
      return errorCopy.rateLimited(command, failure.retryAfterMs, failure.guessed);
    case 'unauthorized':
      return errorCopy.unauthorized;
    case 'not_connected':
      return errorCopy.notConnected;
  }
}
