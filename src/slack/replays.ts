import type { IncomingMessage } from 'node:http';
import { setTimeout as after } from 'node:timers/promises';
import type { App } from '@slack/bolt';
import type { Logger } from '../log.js';
import type { Claims } from '../store/claims.js';
import { keys } from '../store/keys.js';
import { ReplayedRequestError } from './errors.js';
import { requestKind } from './instrumentation.js';

/**
 * Slack's signature is good while its timestamp is within five minutes of the clock either way (one dated further
 * ahead is refused: `transport.ts`), so a captured request can be sent again for ten minutes at most.
 */
const REPLAYABLE_MS = 10 * 60_000;

/**
 * How long the claim may take before the request goes on unchecked: a store that hangs would otherwise add its whole
 * deadline to the request's own, and the person would hear "storage unavailable" after Slack's 3 seconds, not within.
 */
const CHECK_WITHIN_MS = 250;

/** The request's custom property (the HTTP receiver's `customPropertiesExtractor`) holding its signature. */
const SIGNATURE = 'slackSignature';

/** The HTTP receiver's `customPropertiesExtractor`: the request's signature, for `refuseReplays`. */
export const signatureOf = (req: IncomingMessage) => ({ [SIGNATURE]: req.headers['x-slack-signature'] });

/**
 * Bolt keeps no record of the signed requests it let in, so one captured and sent again within its ten minutes (same
 * body, same signature) ran again: a replayed `/agent` started a second job. Each request's signature is claimed in
 * the store once its ack is sent, before what its listener does after the ack: no store round trip before the ack
 * (its latency is Slack's 3 seconds, and benchmarked). A replay is acknowledged as the request was, logged
 * (`slack.request_replayed`), and its ack throws `ReplayedRequestError`, which stops the listener there. Events are
 * left as they are: Slack's retries carry a new signature and the same `event_id`, by which their doors handle each
 * once (`agent/redelivery.ts`). Socket Mode's requests come unsigned over the app's own connection: nothing to replay.
 */
export function refuseReplays(bolt: App, claims: Pick<Claims, 'claim'>, log: Logger): void {
  const process = bolt.processEvent.bind(bolt);
  bolt.processEvent = (event) => {
    const signature = event.customProperties?.[SIGNATURE];
    if (typeof signature !== 'string' || event.body.type === 'event_callback') return process(event);
    let first: Promise<boolean> | undefined;
    const ack: typeof event.ack = async (response) => {
      await event.ack(response);
      // Once per request: a listener acking twice is not its own replay.
      // Without the store (an error, or no answer soon) a replay cannot be told: the request goes on, as what it runs
      // needs the store too and says so.
      first ??= Promise.race([
        claims.claim(keys.slackSignature(signature), 'request', REPLAYABLE_MS).catch((error: unknown) => {
          log.error('store.degraded', { op: 'slack.replay_guard', error });
          return true;
        }),
        after(CHECK_WITHIN_MS, true, { ref: false }),
      ]);
      if (await first) return;
      log.warn('slack.request_replayed', { kind: requestKind(event.body) });
      throw new ReplayedRequestError('a signed request was sent again; it was acknowledged and not run');
    };
    return process({ ...event, ack });
  };
}
