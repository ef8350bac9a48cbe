import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../log.js';
import { slackErrorCode, TOKEN_REFUSED } from './errors.js';

/** Slack refused a token for good. The message names the variable and Slack's reason, never the value. */
export class TokenRefusedError extends Error {
  override name = 'TokenRefusedError';
  readonly code = 'token_refused';
  constructor(
    readonly variable: 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN',
    /** Slack's reason (`invalid_auth`, `token_revoked`, …). */
    readonly slackError: string,
  ) {
    super(`${variable}: Slack refused this token (${slackError})`);
  }
}

export interface RetryOptions {
  /** Wait after the first failed try; doubles each try up to `maxMs`. */
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { initialMs: 1_000, maxMs: 30_000 };

/**
 * Runs `attempt` (a call that presents `variable`'s token to Slack) until Slack accepts it. A refusal of the token
 * throws `TokenRefusedError` at once; anything else (Slack unreachable, a 5xx, a rate limit) is logged and tried
 * again with backoff, until `signal` aborts.
 */
export async function untilAccepted<T>(
  variable: TokenRefusedError['variable'],
  attempt: () => Promise<T>,
  log: Logger,
  retry: RetryOptions,
  signal: AbortSignal,
): Promise<T> {
  let waitMs = retry.initialMs;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const code = slackErrorCode(error);
      if (TOKEN_REFUSED.has(code)) throw new TokenRefusedError(variable, code);
      if (signal.aborted) throw error;
      log.warn('slack.not_ready', { variable, attempt: tries, error: code, retry_in_ms: waitMs });
      await delay(waitMs, undefined, { signal });
      waitMs = Math.min(waitMs * 2, retry.maxMs);
    }
  }
}
