import type { AllMiddlewareArgs, App, SlackCommandMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../deps.js';
import { describeProjects } from '../projects.js';
import { decodeSlackText } from '../slack/decode.js';
import { slackErrorCode } from '../slack/errors.js';
import { decodeWithNames } from '../slack/user-names.js';
import { isAllowed } from './access.js';
import { parseAgentCommand } from './command.js';
import type { AgentContext } from './context.js';
import { sendFollowUp, type ThreadReply } from './follow-up.js';
import { errors, OPEN_PR_ACTION, usage } from './messages.js';
import { startJob } from './start-job.js';
import { toThreadReply } from './thread-reply.js';

/** Slack may deliver an event again; remember what was handled this long. */
const DEDUPE_TTL_MS = 60 * 60 * 1000;

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
type MessageArgs = SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs<{ followUp?: ThreadReply }>;

export function registerAgent(app: App, ctx: AgentContext): void {
  app.command('/agent', commandAccess(ctx), async ({ command, ack, respond }) => {
    const parsed = parseAgentCommand(command.text);
    const projects = describeProjects(ctx.projects, command.channel_id, '/agent');
    if (parsed.kind === 'help' || parsed.kind === 'projects') {
      await ack({
        response_type: 'ephemeral',
        ...(parsed.kind === 'help' ? usage(undefined, projects) : { text: projects }),
      });
      return;
    }
    if (parsed.kind === 'no-project-id' || (parsed.project && !ctx.projects.knows(parsed.project))) {
      const project = parsed.kind === 'prompt' ? parsed.project : undefined;
      await ack({
        response_type: 'ephemeral',
        ...errors.unknownProject(project, projects, decodeSlackText(parsed.prompt)),
      });
      return;
    }
    await ack();
    await ctx.afterAck(async () => {
      const result = await startJob(ctx, {
        project: parsed.project ?? ctx.projects.forChannel(command.channel_id),
        userId: command.user_id,
        channelId: command.channel_id,
        prompt: await decodeWithNames(ctx, parsed.prompt),
      });
      if (!result.ok) await respond({ response_type: 'ephemeral', ...result.reply });
    });
  });

  app.event('message', boundThreadReply(ctx), replyAccess(ctx), async ({ context }) => {
    const { followUp } = context;
    if (followUp) {
      await ctx.afterAck(async () =>
        sendFollowUp(ctx, { ...followUp, text: await decodeWithNames(ctx, followUp.text) }),
      );
    }
  });

  // A link button opens its URL in the browser, and Slack still sends the click: acknowledge it, do nothing else.
  app.action(OPEN_PR_ACTION, async ({ ack }) => ack());
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
 * Guard ladder before any work: a person's reply in a thread bound to one of this bot's jobs, seen for the
 * first time. Retries from Slack (`X-Slack-Retry-Num`) carry the same `event_id`, and a mention arrives as two
 * events with one `client_msg_id`; both are claimed atomically, per project, so no delivery sends a follow-up twice.
 */
function boundThreadReply(ctx: AgentContext) {
  return async ({ event, body, context, next }: MessageArgs) => {
    const reply = toThreadReply(event as unknown as Record<string, unknown>);
    if (!reply) return;
    let job: Awaited<ReturnType<typeof ctx.store.jobs.forThread>>;
    try {
      job = await ctx.store.jobs.forThread(ctx.projects.all, reply.channel, reply.threadTs);
    } catch (error) {
      // Without the store we cannot tell whether this thread is a job's at all, so we must stay silent.
      ctx.log.error('store.degraded', { op: 'agent.thread_lookup', channel: reply.channel, error });
      return;
    }
    if (!job) return;
    const followUp = { ...reply, ...job };
    try {
      const seen = [`event:${job.project}:${body.event_id}`];
      const clientMsgId = (event as { client_msg_id?: unknown }).client_msg_id;
      if (typeof clientMsgId === 'string') seen.push(`message:${job.project}:${clientMsgId}`);
      for (const key of seen) {
        if (!(await ctx.store.claims.claim(key, ctx.instanceId, DEDUPE_TTL_MS))) {
          ctx.log.info('agent.duplicate_event', { key, retry_num: context.retryNum });
          ctx.metrics.duplicatePrevented(key.startsWith('event:') ? 'event' : 'message');
          return;
        }
      }
    } catch (error) {
      // It is a job's thread, but a first delivery cannot be told from a retry: say so, with the text to resend.
      ctx.log.error('store.degraded', { op: 'agent.dedupe', project: job.project, job_id: job.jobId, error });
      await ctx.slack.reactions.add({ channel: reply.channel, timestamp: reply.ts, name: 'x' }).catch(() => {});
      await ctx.slack.chat
        .postEphemeral({
          channel: reply.channel,
          user: reply.userId,
          thread_ts: reply.threadTs,
          ...errors.storeUnavailable(decodeSlackText(reply.text)),
        })
        .catch(() => {});
      return;
    }
    context.followUp = followUp;
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
