import { WebClient } from '@slack/web-api';
import type { Config } from '../config/config.js';
import { type Logger, toSlackLogger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { observingFetch } from './instrumentation.js';
import { waitingOutRateLimits } from './rate-wait.js';

/** Deadline of one Slack Web API call; shorter than the poster's claim (see agent/tracking/poster.ts). */
export const SLACK_TIMEOUT_MS = 10_000;

/**
 * How every Web API client of the app is set up, whatever receives Slack's requests. No automatic retries: a
 * repeated chat.postMessage after a 5xx or a timeout posts twice (Slack often stored the first); callers own
 * retrying (the poster, after reading the thread). A 429 is honoured for every call: posts, root updates and App
 * Home get it back at once and wait it out in their lane (`Again`); any other call waits a short `Retry-After` out
 * inside the client (`rate-wait.ts`). Every call has a deadline so a hung request cannot hold a worker or a stop.
 * `tokenRefused` hears Slack refusing the client's token (or an org-wide one a workspace), whichever call met it, with
 * Slack's code (`token-refusals.ts`).
 */
export function slackClientOptions(
  config: Config,
  metrics: Metrics,
  log: Logger,
  timeoutMs = SLACK_TIMEOUT_MS,
  tokenRefused?: (code: string) => void,
) {
  return {
    slackApiUrl: config.slack.apiUrl,
    logger: toSlackLogger(log, config.logLevel),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: timeoutMs,
    fetch: waitingOutRateLimits(config.slack.apiUrl, observingFetch(config.slack.apiUrl, metrics, tokenRefused)),
  };
}

/**
 * A Web API client with the bot token, for a process that receives nothing from Slack (the worker role), or with
 * a workspace's own token when the app serves many.
 */
export function createSlackClient(
  config: Config,
  metrics: Metrics,
  log: Logger,
  timeoutMs?: number,
  token = config.slack.botToken,
  tokenRefused?: (code: string) => void,
): WebClient {
  return new WebClient(token || undefined, slackClientOptions(config, metrics, log, timeoutMs, tokenRefused));
}
