import { slackSignature as sign } from '../../tools/slack-standin/index.js';
import { ackBodies } from '../support/wire-safety.js';

export const SIGNING_SECRET = 'test-signing-secret';

export interface SlackRequestOptions {
  secret?: string;
  /** Seconds since the epoch; defaults to now. A stale one tests replay protection. */
  timestamp?: number;
  headers?: Record<string, string>;
}

/** Signs a body the way Slack does: `v0=` HMAC-SHA256 over `v0:<timestamp>:<body>`. */
export function slackSignature(body: string, timestamp: number, secret = SIGNING_SECRET): string {
  return sign(body, timestamp, secret);
}

/** POSTs a correctly signed request to the app's `/slack/events`. */
export async function postSigned(
  baseUrl: string,
  body: string,
  contentType: string,
  options: SlackRequestOptions = {},
): Promise<Response> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const res = await fetch(`${baseUrl}/slack/events`, {
    method: 'POST',
    headers: {
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(body, timestamp, options.secret),
      ...options.headers,
    },
    body,
  });
  // What the app answers in the ack (a command's private reply) is read by people too: checked like its posts.
  const answer = await res.clone().text();
  if (answer.startsWith('{')) ackBodies.push({ method: 'ack', args: JSON.parse(answer), at: Date.now() });
  return res;
}

export function postForm(baseUrl: string, fields: Record<string, string>, options?: SlackRequestOptions) {
  return postSigned(baseUrl, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', options);
}

export function postJson(baseUrl: string, payload: unknown, options?: SlackRequestOptions) {
  return postSigned(baseUrl, JSON.stringify(payload), 'application/json', options);
}

/** Interactivity (`block_actions`) arrives as a form with one `payload` field. */
export function postInteraction(baseUrl: string, payload: unknown, options?: SlackRequestOptions) {
  return postForm(baseUrl, { payload: JSON.stringify(payload) }, options);
}
