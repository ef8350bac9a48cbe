import type { AllMiddlewareArgs, App, Context, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../deps.js';
import { decodeSlackText } from '../slack/decode.js';
import { decodeWithNames } from '../slack/user-names.js';
import { isAllowed } from './access.js';
import { readJobRequest } from './command.js';
import type { AgentContext } from './context.js';
import { handleTurn } from './conversation.js';
import { toIncoming } from './incoming.js';
import { errors, OPEN_PR_ACTION, usage } from './messages.js';
import {
  INSTRUCTION_BLOCK,
  type MessageAction,
  openShortcutModal,
  parseSubmission,
  SHORTCUT_ID,
  startFromShortcut,
} from './shortcut.js';
import { startJob } from './start-job.js';

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

export function registerAgent(app: App, ctx: AgentContext): void {
  app.command('/agent', commandAccess(ctx), async ({ command, ack, respond }) => {
    const parsed = readJobRequest(command.text, ctx.projects, command.channel_id, (here) => usage(undefined, here));
    if (parsed.kind === 'answer') {
      await ack({ response_type: 'ephemeral', ...parsed.message });
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

  // A mention is handled from its `app_mention` event: its `message` twin (same ts and client_msg_id) is skipped.
  app.event('app_mention', async ({ event, body, context }) => {
    const turn = toIncoming(event as unknown as Record<string, unknown>, context.botUserId);
    if (turn) await ctx.afterAck(() => handleTurn(ctx, { ...turn, ...arrival(body, context), addressed: true }));
  });

  app.event('message', async ({ event, body, context }) => {
    const turn = toIncoming(event as unknown as Record<string, unknown>, context.botUserId);
    const isDm = (event as { channel_type?: string }).channel_type === 'im';
    // Outside a DM, only a reply in a thread can concern the bot (a job's follow-up); mentions come as app_mention.
    if (!turn || (!isDm && (turn.mentionsBot || !turn.threadTs))) return;
    await ctx.afterAck(() => handleTurn(ctx, { ...turn, ...arrival(body, context), addressed: isDm }));
  });

  // The shortcut opens its modal straight after the ack, outside the after-ack queue: the trigger lasts 3 s.
  app.shortcut({ callback_id: SHORTCUT_ID, type: 'message_action' }, async ({ shortcut, ack, respond }) => {
    await ack();
    const opened = await openShortcutModal(ctx, shortcut as unknown as MessageAction);
    // Without the form the click did nothing visible: say so, privately, where the message is.
    if (!opened.ok) await respond({ response_type: 'ephemeral', text: opened.text }).catch(() => {});
  });

  app.view(SHORTCUT_ID, async ({ ack, body, view }) => {
    const submission = parseSubmission(view.private_metadata, view.state.values);
    if (!submission.ok) return ack({ response_action: 'errors', errors: submission.errors });
    if (!isAllowed(ctx.config, body.user.id, submission.origin.channel)) {
      return ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: errors.notAllowed().text } });
    }
    await ack();
    await ctx.afterAck(() => startFromShortcut(ctx, body.user.id, submission));
  });

  // A link button opens its URL in the browser, and Slack still sends the click: acknowledge it, do nothing else.
  app.action(OPEN_PR_ACTION, async ({ ack }) => ack());
}

const isId = (value: unknown) => typeof value === 'string' && value !== '';

/** What a listener knows about how an event arrived, beyond the message itself. */
function arrival(body: { event_id?: unknown }, context: Context) {
  return {
    eventId: String(body.event_id ?? ''),
    botUserId: context.botUserId,
    botId: context.botId,
    retryNum: context.retryNum,
  };
}

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
    const prompt = typeof command.text === 'string' ? decodeSlackText(command.text) : undefined;
    await ack({ response_type: 'ephemeral', ...errors.notAllowed(prompt) });
  };
}
