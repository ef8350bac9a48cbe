import type { EventEnvelope } from './events.js';
import type { SocketModeStandin } from './socket-mode.js';
import { slackSignature } from './wire.js';

/** Delivers Events API envelopes to the app; `retry` > 0 is Slack's redelivery of the same envelope (same event_id). */
export interface EventDelivery {
  deliver(envelope: EventEnvelope, retry?: number): Promise<void>;
}

/**
 * Over HTTP, as Slack's Events API does: a signed POST to the app's request URL. A redelivery carries
 * `X-Slack-Retry-Num` and `X-Slack-Retry-Reason` (Events API, "retries"). What the app answered is kept.
 */
export function httpDelivery(options: {
  appUrl: string;
  signingSecret: string;
  path?: string;
  retryReason?: 'http_timeout' | 'http_error' | 'connection_failed';
}): EventDelivery & { responses: Response[] } {
  const responses: Response[] = [];
  return {
    responses,
    async deliver(envelope, retry = 0) {
      const body = JSON.stringify(envelope);
      const timestamp = Math.floor(Date.now() / 1000);
      const res = await fetch(`${options.appUrl}${options.path ?? '/slack/events'}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': slackSignature(body, timestamp, options.signingSecret),
          ...(retry > 0 && {
            'x-slack-retry-num': String(retry),
            'x-slack-retry-reason': options.retryReason ?? 'http_timeout',
          }),
        },
        body,
      });
      await res.clone().arrayBuffer();
      responses.push(res);
    },
  };
}

/** Over Socket Mode: an `events_api` envelope, acknowledged by the app (`retry_attempt` on a redelivery). */
export function socketDelivery(socket: SocketModeStandin): EventDelivery {
  return {
    async deliver(envelope, retry = 0) {
      await socket.event(envelope, retry);
    },
  };
}
