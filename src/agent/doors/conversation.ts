import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import type { ReportBeside } from '../../visitors/index.js';
import { agentTasks } from '../agent-tasks.js';
import { viewingFor } from '../agent-view.js';
import { MY_JOBS_WORDS } from '../my-jobs.js';
import { type BesideDeps, besideChannel, reportedBeside } from './beside.js';
import { type Incoming, toIncoming } from './incoming.js';
import { type EventDelivery, turnOf } from './turn.js';

type MentionArgs = SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs;
type MessageArgs = SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs;
type DoorDeps = Pick<Deps, 'slack' | 'store' | 'log' | 'dispatch'>;
type DmDeps = BesideDeps;
/** A DM's event as the door reads it: where it was written and, on an `agent_view` app, what the person looks at. */
type DmArgs = EventDelivery & { event: { channel_type?: string; app_context?: unknown } };

// The conversational doors: a mention, a direct message, a reply in a thread. Each narrows its event with the guard
// ladder (`toIncoming`: people's new messages only), decodes the text once, and hands one `Turn` on; what the
// message means to the bot (a new job, a follow-up, nothing) is decided past the door (`handle-turn.ts`).

/** `@Mintlify …` in a channel. A mention arrives as two events; this one handles it, its `message` twin is skipped. */
export async function mention(deps: DoorDeps, { event, body, context }: MentionArgs): Promise<void> {
  const incoming = toIncoming(event, context.botUserId);
  if (incoming) await hand(deps, incoming, { body, context }, true);
}

/**
 * A message in the bot's DM (Messages tab): spoken to the bot. On an `agent_view` app it comes with what the person
 * is looking at, and is the agent's as the pane's thread is (`beside.ts`); otherwise it is a plain DM's turn.
 */
export async function directMessage(
  deps: DmDeps,
  { event, body, context }: DmArgs,
  reportBeside: ReportBeside,
): Promise<void> {
  if (event.channel_type !== 'im') return;
  const incoming = toIncoming(event, context.botUserId);
  if (!incoming) return;
  const stamped = event.app_context;
  // Without the store, a message without its own context is a plain DM's (the default project).
  const viewing = await viewingFor(deps, incoming.userId, stamped).catch((error) => {
    deps.log.error('store.degraded', { op: 'agent_view.read_context', error });
    return undefined;
  });
  if (viewing) return besideChannel(deps, incoming, { body, context }, viewing.channel, reportBeside);
  const turn = await turnOf(deps, incoming, { body, context }, true);
  // A suggested prompt means what it says when no context came or was kept (`visitors …`, `my jobs`): not a job.
  if (await reportedBeside(deps, turn, turn.channel, reportBeside)) return;
  if (MY_JOBS_WORDS.test(turn.text)) return deps.dispatch(agentTasks.pane, { turn });
  await deps.dispatch(agentTasks.turn, turn);
}

/** Every `message` event, through one Bolt listener: a message in the bot's DM, or one in a channel. */
export async function message(deps: DmDeps, args: MessageArgs, reportBeside: ReportBeside): Promise<void> {
  return args.event.channel_type === 'im' ? directMessage(deps, args, reportBeside) : threadReply(deps, args);
}

/** A reply in a channel's thread: it can only concern the bot as a job's follow-up (mentions come as app_mention). */
async function threadReply(deps: DoorDeps, { event, body, context }: MessageArgs): Promise<void> {
  const incoming = toIncoming(event, context.botUserId);
  if (incoming?.threadTs && !incoming.mentionsBot) await hand(deps, incoming, { body, context }, false);
}

async function hand(deps: DoorDeps, incoming: Incoming, delivery: EventDelivery, addressed: boolean): Promise<void> {
  await deps.dispatch(agentTasks.turn, await turnOf(deps, incoming, delivery, addressed));
}
