import { slackErrorCode } from '../slack/errors.js';
import type { AgentContext } from './context.js';
import { takeSlot } from './limits.js';
import { errors, type Message } from './messages.js';
import { refreshRootMessage } from './root-message.js';
import { replyForServiceError } from './start-job.js';

/** A person's reply in a job's thread, narrowed from the raw event. */
export interface ThreadReply {
  channel: string;
  threadTs: string;
  ts: string;
  userId: string;
  text: string;
  jobId: string;
}

const SEEN = 'eyes';
const ACCEPTED = 'white_check_mark';
const REFUSED = 'x';

/**
 * Hands a thread reply to the job as a follow-up: 👀 while handing over, ✅ once the service accepted
 * it (or ❌ and a private explanation), then tracks the job again from the shortest poll interval.
 */
export async function sendFollowUp(ctx: AgentContext, reply: ThreadReply): Promise<void> {
  const { slack, mintlify, bindings, poller, log, store, config } = ctx;
  await react(ctx, reply, 'add', SEEN);

  const refuse = async (message: Message) => {
    await react(ctx, reply, 'remove', SEEN);
    await react(ctx, reply, 'add', REFUSED);
    await slack.chat
      .postEphemeral({ channel: reply.channel, user: reply.userId, thread_ts: reply.threadTs, ...message })
      .catch((error) =>
        log.warn('slack.post_failed', { op: 'agent.follow_up_error', slack_error: slackErrorCode(error) }),
      );
  };

  const slot = await takeSlot(store.claims, config.mintlify.projectId, 'follow_up');
  if (!slot.ok) return refuse(errors.followUpLimit(reply.text, slot.retryAfterMs, ctx.now()));

  let job: Awaited<ReturnType<typeof mintlify.sendFollowUp>>;
  try {
    job = await mintlify.sendFollowUp(reply.jobId, reply.text);
  } catch (error) {
    return refuse(replyForServiceError(ctx, error, reply.text, 'follow_up'));
  }
  log.info('mintlify.follow_up', { outcome: 'ok', job_id: reply.jobId, channel: reply.channel });

  const record = await bindings.getJob(reply.jobId);
  if (record) {
    const resumed = {
      ...record,
      status: job.status,
      round: record.round + 1,
      roundStartedAtMs: ctx.now(),
      ended: null,
    };
    await bindings.bind(resumed);
    poller.track(resumed);
    await refreshRootMessage(ctx, resumed);
  }
  await react(ctx, reply, 'remove', SEEN);
  await react(ctx, reply, 'add', ACCEPTED);
}

async function react(ctx: AgentContext, reply: ThreadReply, op: 'add' | 'remove', name: string): Promise<void> {
  const args = { channel: reply.channel, timestamp: reply.ts, name };
  await (op === 'add' ? ctx.slack.reactions.add(args) : ctx.slack.reactions.remove(args)).catch((error) =>
    ctx.log.warn('slack.reaction_failed', { op, name, slack_error: slackErrorCode(error) }),
  );
}
