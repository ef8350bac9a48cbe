import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { listenerFailed, requestKind } from './instrumentation.js';

/** A listener's arguments: an ack to send, or none for an event (Bolt acknowledges events before any listener). */
type Acking = { ack?: (...response: never[]) => Promise<void> };

/**
 * A listener whose request ends at its ack: what it does after the ack goes on apart from Bolt, which would
 * otherwise hold the request (its body, listener arguments, context and HTTP objects) until the listener returns.
 * A listener awaiting Redis after its ack kept all of that alive across young collections, which copied and then
 * promoted it: in the web role at 500/s most of what its scavenges promoted (BENCHMARKS §1b). The listener keeps what
 * it reads; the ack itself is let go once sent. An event's request ends as its listener starts, Bolt having acked it.
 * A failure before the ack is Bolt's, as before; one after it is logged and counted as Bolt's error handler does a
 * listener's (`listenerFailed`), under the request's kind as `slack_requests_total` names it (read at once, so the body
 * is not held for the failure's sake).
 */
export function endsAtAck<A extends Acking>(
  deps: { log: Pick<Logger, 'error'>; metrics: Metrics },
  listener: (args: A) => Promise<void>,
): (args: A) => Promise<void> {
  return (args) =>
    new Promise<void>((resolve, reject) => {
      // Bolt hands every listener the request's body.
      const kind = requestKind((args as { body?: Record<string, unknown> }).body ?? {});
      let unsent: A['ack'] | undefined = args.ack;
      let acked = unsent === undefined;
      if (acked) resolve();
      const ack = (async (...response: never[]) => {
        const send = unsent;
        unsent = undefined;
        try {
          await send?.(...response);
        } finally {
          acked = true;
          resolve();
        }
      }) as A['ack'];
      listener(acked ? args : { ...args, ack }).then(resolve, (error: unknown) => {
        if (acked) listenerFailed(deps, kind, error);
        else reject(error);
      });
    });
}
