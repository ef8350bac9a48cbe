import type { AnyMiddlewareArgs, Context, Middleware } from '@slack/bolt';
import { decodeSlackText } from './decode.js';
import { payloadOf } from './payload.js';

/**
 * A middleware that stops the requests `stops` picks by their context, before any listener: a command is answered in its ack with
 * `answer`, given the command, what was typed (decoded) and the context; anything else is acknowledged (Slack sends an event
 * again, a click can be clicked again). The others go on.
 */
export function gate(
  stops: (context: Context) => boolean,
  answer: (command: string, typed: string, context: Context) => string,
  log: (context: Context, command: string | undefined) => void,
): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    if (!stops(args.context)) return args.next();
    const { command, text: typed } = payloadOf(args.body);
    const ack = 'ack' in args ? (args.ack as (response?: Record<string, unknown>) => Promise<void>) : undefined;
    log(args.context, command);
    if (command === undefined) return ack?.();
    return ack?.({ response_type: 'ephemeral', text: answer(command, decodeSlackText(typed ?? ''), args.context) });
  };
}
