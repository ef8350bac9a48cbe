import type { AllMiddlewareArgs, App, SlackCommandMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import { isAllowed } from './access.js';
import { parseAgentCommand } from './command.js';
import type { AgentContext } from './context.js';
import { sendFollowUp, type ThreadReply } from './follow-up.js';
import { errors, usage } from './messages.js';
import { startJob } from './start-job.js';
import { toThreadReply } from './thread-reply.js';

/** Slack may deliver an event again; remember what was handled this long. */
const DEDUPE_TTL_MS = 60 * 60 * 1000;

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
type MessageArgs = SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs<{ followUp?: ThreadReply }>;

export function registerAgent(app: App, ctx: AgentContext): void {
  app.command('/agent', commandAccess(ctx), async ({ command, ack, respond }) => {
    const parsed = parseAgentCommand(command.text);
    if (parsed.kind === 'help') {
      await ack({ response_type: 'ephemeral', ...usage() });
      return;
    }
    await ack();
    const input = { userId: command.user_id, channelId: command.channel_id, prompt: parsed.prompt };
    await ctx.afterAck(async () => {
      const result = await startJob(ctx, input);
      if (!result.ok) await respond({ response_type: 'ephemeral', ...result.reply });
    });
  });

  app.event('message', boundThreadReply(ctx), replyAccess(ctx), async ({ context }) => {
    const { followUp } = context;
    if (followUp) await ctx.afterAck(() => sendFollowUp(ctx, followUp));
  });
}

const isId = (value: unknown) => typeof value === 'string' && value !== '';

function commandAccess(ctx: Deps) {
  return async ({ command, ack, next, logger }: CommandArgs) => {
    // Without both there is nobody to credit and nowhere to post: refuse before any slot, post or job.
    if (!isId(command.user_id) || !isId(command.channel_id)) {
      await ack({
        response_type: 'ephemeral',
        ...usage('I could not tell who ran this command or where, so I did nothing.'),
      });
      return;
    }
    if (isAllowed(ctx.config, command.user_id, command.channel_id)) return next();
    logger.info(`agent.refused user=${command.user_id} channel=${command.channel_id}`);
    await ack({ response_type: 'ephemeral', ...errors.notAllowed() });
  };
}

/**
 * Guard ladder before any work: a person's reply in a thread bound to a job, seen for the first time.
 * Retries from Slack (`X-Slack-Retry-Num`) carry the same `event_id`; both it and `client_msg_id` are
 * claimed atomically so a redelivery never sends a second follow-up.
 */
function boundThreadReply(ctx: AgentContext) {
  return async ({ event, body, context, next }: MessageArgs) => {
    const reply = toThreadReply(event as unknown as Record<string, unknown>);
    if (!reply) return;
    try {
      const jobId = await ctx.bindings.jobForThread(reply.channel, reply.threadTs);
      if (!jobId) return;
      const seen = [`event:${body.event_id}`];
      const clientMsgId = (event as { client_msg_id?: unknown }).client_msg_id;
      if (typeof clientMsgId === 'string') seen.push(`message:${clientMsgId}`);
      for (const key of seen) {
        if (!(await ctx.store.claims.claim(key, ctx.instanceId, DEDUPE_TTL_MS))) {
          ctx.log.info('agent.duplicate_event', { key, retry_num: context.retryNum });
          return;
        }
      }
      context.followUp = { ...reply, jobId };
    } catch (error) {
      // Without the store we cannot tell a first delivery from a retry; doing nothing is the safe side.
      ctx.log.error('store.degraded', { op: 'agent.thread_reply', channel: reply.channel, error });
      return;
    }
    await next();
  };
}

function replyAccess(ctx: Deps) {
  return async ({ context, next }: MessageArgs) => {
    const reply = context.followUp;
    if (!reply || isAllowed(ctx.config, reply.userId, reply.channel)) return next();
    await ctx.slack.chat
      .postEphemeral({ channel: reply.channel, user: reply.userId, thread_ts: reply.threadTs, ...errors.notAllowed() })
      .catch((error) => ctx.log.warn('slack.post_failed', { op: 'agent.refused', slack_error: slackErrorCode(error) }));
  };
}
