import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { accessOf, type Verdict } from '../../slack/access.js';
import { decodeWithNames } from '../../slack/user-names.js';
import type { Turn } from '../conversation.js';
import { type Incoming, toIncoming } from './incoming.js';

type MentionArgs = SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs;
type MessageArgs = SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs;
type DoorDeps = Pick<Deps, 'slack' | 'store' | 'log' | 'dispatch'>;

// The conversational doors: a mention, a direct message, a reply in a thread. Each narrows its event with the guard
// ladder (`toIncoming`: people's new messages only), decodes the text once, and hands one `Turn` on; what the
// message means to the bot (a new job, a follow-up, nothing) is decided past the door (`conversation.ts`).

/** `@Mintlify …` in a channel. A mention arrives as two events; this one handles it, its `message` twin is skipped. */
export async function mention(deps: DoorDeps, { event, body, context }: MentionArgs): Promise<void> {
  const incoming = toIncoming(event as unknown as Record<string, unknown>, context.botUserId);
  if (incoming) await hand(deps, incoming, { body, context }, true);
}

/** A message in the bot's DM (Messages tab): spoken to the bot. */
export async function directMessage(deps: DoorDeps, { event, body, context }: MessageArgs): Promise<void> {
  if (event.channel_type !== 'im') return;
  const incoming = toIncoming(event as unknown as Record<string, unknown>, context.botUserId);
  if (incoming) await hand(deps, incoming, { body, context }, true);
}

/** Every `message` event, through one Bolt listener: a message in the bot's DM, or one in a channel. */
export async function message(deps: DoorDeps, args: MessageArgs): Promise<void> {
  return args.event.channel_type === 'im' ? directMessage(deps, args) : threadReply(deps, args);
}

/** A reply in a channel's thread: it can only concern the bot as a job's follow-up (mentions come as app_mention). */
async function threadReply(deps: DoorDeps, { event, body, context }: MessageArgs): Promise<void> {
  const incoming = toIncoming(event as unknown as Record<string, unknown>, context.botUserId);
  if (incoming?.threadTs && !incoming.mentionsBot) await hand(deps, incoming, { body, context }, false);
}

async function hand(
  deps: DoorDeps,
  incoming: Incoming,
  delivery: { body: unknown; context: MessageArgs['context'] },
  addressed: boolean,
): Promise<void> {
  await deps.dispatch('agent.turn', await turnOf(deps, incoming, delivery, addressed));
}

/** The `Turn` of a person's message: its text decoded (people by name), its delivery's ids, the access verdict. */
export async function turnOf(
  deps: Pick<Deps, 'slack' | 'store' | 'log'>,
  incoming: Incoming,
  { body, context }: { body: unknown; context: MessageArgs['context'] },
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
