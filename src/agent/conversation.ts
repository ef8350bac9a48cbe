import { decodeSlackText } from '../slack/decode.js';
import { slackErrorCode } from '../slack/errors.js';
import { decodeWithNames } from '../slack/user-names.js';
import type { JobRef } from '../store/jobs.js';
import { isAllowed } from './access.js';
import { readJobRequest } from './command.js';
import type { AgentContext } from './context.js';
import { sendFollowUp } from './follow-up.js';
import type { Incoming } from './incoming.js';
import { conversationUsage, errors, type Message } from './messages.js';
import { isStarting, startJob } from './start-job.js';
import { readThreadContext } from './thread-context.js';

/** Slack may deliver an event again; remember what was handled this long. */
const DEDUPE_TTL_MS = 60 * 60 * 1000;

/** One message from a conversation, with what the listener knows about how it arrived. */
export interface Turn extends Incoming {
  eventId: string;
  /** Spoken to the bot (a mention, a DM): outside a job's thread it starts a job. Otherwise it only follows one up. */
  addressed: boolean;
  botUserId?: string | undefined;
  botId?: string | undefined;
  retryNum?: number | undefined;
}

/** Where a private answer to the person goes. */
export interface Spot {
  channel: string;
  userId: string;
  threadTs?: string | undefined;
}

/**
 * The one path of every conversational door (a mention, a DM, a reply in a job's thread): in a job's thread a
 * message is that job's follow-up; addressed elsewhere it starts a job in its own thread (with the thread's
 * earlier messages as context). Each message is handled once per deployment: by `event_id` (Slack's retries)
 * and by `client_msg_id` (a mention arrives as two events).
 */
export async function handleTurn(ctx: AgentContext, turn: Turn): Promise<void> {
  // Private answers go where the person wrote: in their thread, or at the top level of the conversation.
  const spot = { channel: turn.channel, userId: turn.userId, threadTs: turn.threadTs };
  let job: (JobRef & { threadTs: string }) | undefined;
  if (turn.threadTs) {
    try {
      const found = await ctx.store.jobs.forThread(ctx.projects.all, turn.channel, turn.threadTs);
      job = found && { ...found, threadTs: turn.threadTs };
    } catch (error) {
      // Without the store we cannot tell whether this thread is a job's: silent, unless the person spoke to us.
      ctx.log.error('store.degraded', { op: 'agent.thread_lookup', channel: turn.channel, error });
      if (turn.addressed) await tellPrivately(ctx, spot, errors.storeUnavailable(decodeSlackText(turn.text)));
      return;
    }
  }
  // The thread's job is being started right now: its reply is neither ignored nor the start of a second job.
  const starting =
    !job &&
    turn.threadTs !== undefined &&
    (await isStarting(ctx, ctx.projects.all, turn.channel, turn.threadTs).catch(() => false));
  if (job || starting ? !turn.text : !turn.addressed) return;
  const project = job?.project ?? ctx.projects.forChannel(turn.channel);
  if (!(await firstDelivery(ctx, turn))) return;
  if (!isAllowed(ctx.config, turn.userId, turn.channel)) {
    ctx.log.info(`agent.refused user=${turn.userId} channel=${turn.channel}`);
    return tellPrivately(ctx, spot, errors.notAllowed(decodeSlackText(turn.text)));
  }
  if (starting) return tellPrivately(ctx, spot, errors.jobStarting(decodeSlackText(turn.text)));

  if (job) {
    const text = await decodeWithNames(ctx, turn.text);
    return sendFollowUp(ctx, { ...job, channel: turn.channel, userId: turn.userId, ts: turn.ts, text });
  }

  // A new job: the same words as `/agent` (`help`, `projects`, `--project <id> <instruction>`).
  const request = readJobRequest(turn.text, ctx.projects, turn.channel, conversationUsage);
  if (request.kind === 'answer') return tellPrivately(ctx, spot, request.message);
  const text = await decodeWithNames(ctx, request.prompt);
  const context = turn.threadTs
    ? await readThreadContext(ctx, { ...turn, threadTs: turn.threadTs, beforeTs: turn.ts }).catch((error) => {
        // The instruction still stands on its own; the log says why the context is missing.
        ctx.log.warn('slack.thread_context_unavailable', { channel: turn.channel, slack_error: slackErrorCode(error) });
        return undefined;
      })
    : undefined;
  const result = await startJob(ctx, {
    project: request.project ?? project,
    userId: turn.userId,
    channelId: turn.channel,
    prompt: text,
    threadTs: turn.threadTs ?? turn.ts,
    context,
  });
  if (!result.ok) await tellPrivately(ctx, spot, result.reply);
}

/** Claims the message's event and its `client_msg_id`; false (after saying so when the store fails) when not first. */
async function firstDelivery(ctx: AgentContext, turn: Turn): Promise<boolean> {
  // Keyed by the deployment's default project (bots may share a Redis), not the message's: a redelivered mention
  // finds the job it started in its thread, maybe of another project, and must still be recognised.
  const project = ctx.projects.defaultProject;
  const seen = [`event:${project}:${turn.eventId}`];
  if (turn.clientMsgId) seen.push(`message:${project}:${turn.clientMsgId}`);
  try {
    for (const key of seen) {
      if (!(await ctx.store.claims.claim(key, ctx.instanceId, DEDUPE_TTL_MS))) {
        ctx.log.info('agent.duplicate_event', { key, retry_num: turn.retryNum });
        ctx.metrics.duplicatePrevented(key.startsWith('event:') ? 'event' : 'message');
        return false;
      }
    }
    return true;
  } catch (error) {
    // A first delivery cannot be told from a retry: do nothing, say so, with the text to resend.
    ctx.log.error('store.degraded', { op: 'agent.dedupe', project, error });
    await ctx.slack.reactions.add({ channel: turn.channel, timestamp: turn.ts, name: 'x' }).catch(() => {});
    const spot = { channel: turn.channel, userId: turn.userId, threadTs: turn.threadTs };
    await tellPrivately(ctx, spot, errors.storeUnavailable(decodeSlackText(turn.text)));
    return false;
  }
}

/**
 * A message only the person sees, in the conversation (and thread) they wrote in; where the bot cannot post
 * (not in the channel), in its DM with them instead, so the echoed instruction is never lost.
 */
export async function tellPrivately(ctx: AgentContext, spot: Spot, message: Message): Promise<void> {
  try {
    await ctx.slack.chat.postEphemeral({
      channel: spot.channel,
      user: spot.userId,
      ...(spot.threadTs && { thread_ts: spot.threadTs }),
      ...message,
    });
  } catch (error) {
    ctx.log.warn('slack.post_failed', { op: 'agent.private_note', slack_error: slackErrorCode(error) });
    await ctx.slack.chat
      .postMessage({ channel: spot.userId, ...message })
      .catch((e) => ctx.log.warn('slack.post_failed', { op: 'agent.private_note_dm', slack_error: slackErrorCode(e) }));
  }
}
