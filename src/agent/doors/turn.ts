import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { accessOf, type Verdict } from '../../slack/access.js';
import { decodeWithNames } from '../../slack/user-names.js';
import type { Turn } from '../requests.js';
import type { Incoming } from './incoming.js';

type MessageArgs = SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs;

/** What a door passes on of Bolt's delivery: the request body (its ids) and Bolt's context (the access verdict). */
export type EventDelivery = { body: unknown; context: MessageArgs['context'] };

/** The `Turn` of a person's message: its text decoded (people by name), its delivery's ids, the access verdict. */
export async function turnOf(
  deps: Pick<Deps, 'slack' | 'store' | 'log'>,
  incoming: Incoming,
  { body, context }: EventDelivery,
  addressed: boolean,
): Promise<Turn> {
  return {
    channel: incoming.channel,
    ts: incoming.ts,
    threadTs: incoming.threadTs,
    userId: incoming.userId,
    text: await decodeWithNames(deps, incoming.wireText),
    clientMsgId: incoming.clientMsgId,
    eventId: String((body as { event_id?: unknown }).event_id ?? ''),
    retryNum: context.retryNum,
    addressed,
    mentionsBot: incoming.mentionsBot,
    ...(incoming.files.length > 0 && { files: incoming.files }),
    ...accessFields(accessOf(context)),
    botUserId: context.botUserId,
    botId: context.botId,
  };
}

/** The verdict as a turn carries it: whether allowed, and whether refused for being from another organisation. */
const accessFields = (verdict: Verdict) => ({
  allowed: verdict.allowed,
  ...(!verdict.allowed && verdict.reason === 'external' && { external: true }),
});
