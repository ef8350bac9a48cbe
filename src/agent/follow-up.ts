import { RateLimitedError, UnavailableError } from '../mintlify/errors.js';
import { slackErrorCode } from '../slack/errors.js';
import type { JobRef } from '../store/jobs.js';
import { persist } from '../store/retry.js';
import type { AgentContext } from './context.js';
import { errors, type Message } from './messages.js';
import { refreshRootMessage } from './root-message.js';
import { replyForServiceError } from './start-job.js';

/** A person's reply in a job's thread, narrowed from the raw event, its text decoded for the agent. */
export interface ThreadReply extends JobRef {
  channel: string;
  threadTs: string;
  ts: string;
  userId: string;
  text: string;
}

const SEEN = 'eyes';
const ACCEPTED = 'white_check_mark';
const REFUSED = 'x';

/**
 * Hands a thread reply to the job as a follow-up: 👀 while handing over, ✅ once the service accepted it (or ❌
 * and a private explanation with the text echoed), then starts the job's next round and tracks it. Once the
 * service has the instruction its round must be tracked, so that write is retried through a store outage.
 */
export async function sendFollowUp(ctx: AgentContext, reply: ThreadReply): Promise<void> {
  const { mintlify, poller, store, quota } = ctx;
  const { project, jobId, text } = reply;
  const log = ctx.log.child({ project, job_id: jobId });
  await react(ctx, reply, 'add', SEEN);

  let slot: Awaited<ReturnType<typeof quota.take>>;
  try {
    slot = await quota.take(project, 'follow_up');
  } catch (error) {
    log.error('store.unavailable', { op: 'agent.take_slot', error });
    return refuse(ctx, reply, errors.storeUnavailable(text));
  }
  if (!slot.ok) return refuse(ctx, reply, errors.followUpLimit(project, text, slot.resetInMs, ctx.now()));

  try {
    await mintlify.sendFollowUp(project, jobId, text);
  } catch (error) {
    const unused = !(error instanceof RateLimitedError) && !(error instanceof UnavailableError && error.ambiguous);
    if (unused) await quota.refund(project, 'follow_up').catch(() => {});
    return refuse(ctx, reply, replyForServiceError(ctx, error, text, 'follow_up'));
  }
  log.info('mintlify.follow_up', { outcome: 'ok', channel: reply.channel });

  const binding = {
    project,
    jobId,
    channel: reply.channel,
    threadTs: reply.threadTs,
    statusTs: reply.threadTs,
    userId: reply.userId,
    prompt: text,
    createdAtMs: ctx.now(),
  };
  try {
    await persist(log, 'agent.start_round', () => store.jobs.startRound(binding, ctx.now()));
  } catch (error) {
    log.error('store.unavailable', { op: 'agent.start_round', error });
    await swap(ctx, reply, ACCEPTED);
    return tell(ctx, reply, errors.followUpUntracked(text));
  }
  poller.track({ project, jobId });
  await swap(ctx, reply, ACCEPTED);
  await refreshRootMessage(ctx, { project, jobId });
}

async function refuse(ctx: AgentContext, reply: ThreadReply, message: Message): Promise<void> {
  await swap(ctx, reply, REFUSED);
  await tell(ctx, reply, message);
}

/** Replaces 👀 with the final reaction. */
async function swap(ctx: AgentContext, reply: ThreadReply, name: string): Promise<void> {
  await react(ctx, reply, 'remove', SEEN);
  await react(ctx, reply, 'add', name);
}

/** A private message to the person who replied, in the thread. */
async function tell(ctx: AgentContext, reply: ThreadReply, message: Message): Promise<void> {
  await ctx.slack.chat
    .postEphemeral({ channel: reply.channel, user: reply.userId, thread_ts: reply.threadTs, ...message })
    .catch((error) =>
      ctx.log.warn('slack.post_failed', { op: 'agent.follow_up_note', slack_error: slackErrorCode(error) }),
    );
}

async function react(ctx: AgentContext, reply: ThreadReply, op: 'add' | 'remove', name: string): Promise<void> {
  const args = { channel: reply.channel, timestamp: reply.ts, name };
  await (op === 'add' ? ctx.slack.reactions.add(args) : ctx.slack.reactions.remove(args)).catch((error) =>
    ctx.log.warn('slack.reaction_failed', { op, name, slack_error: slackErrorCode(error) }),
  );
}
