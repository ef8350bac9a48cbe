import type { App, BlockAction, ButtonAction, RespondFn, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Deps, Limiter } from '../deps.js';
import { describeProjects, takeProjectOption } from '../projects.js';
import { slackErrorCode } from '../slack/errors.js';
import { ACTION_IDS, buildReport } from './blocks.js';
import { sendChartPrivately, shareChart } from './chart-delivery.js';
import { decodeRequest, parseVisitorsCommand, type VisitorsRequest } from './date-range.js';
import { parseDigestCommand } from './digest-schedule.js';
import { answerDigestCommand } from './digest-subscribe.js';
import { exportVisitorsCsv, postFailedText } from './export.js';
import { errorCopy, helpMessage, notice, type SlackMessage } from './messages.js';
import { failureText, previousTotals, showVisitors } from './report.js';

export const COMMAND = '/visitors';

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>>;

/**
 * `/visitors` and its buttons. Each listener acks at once (Slack never waits on the service), then does one
 * thing and answers privately through `response_url`, except Share (a channel post) and CSV (a channel upload).
 */
export function registerVisitors(app: App, deps: Deps): void {
  app.command(COMMAND, async ({ command, ack, respond }) => {
    await ack();
    // A malformed form body can repeat `text`, which then arrives as an array: read it as no text (usage).
    const text = typeof command.text === 'string' ? command.text : '';
    const digest = digestWords(text);
    if (digest) {
      deps.log.info('visitors.command', { user: command.user_id, channel: command.channel_id, parsed: 'digest' });
      await guard(deps, respond, 'digest', deps.afterAck, async () => {
        const project = digest.project ?? deps.projects.forChannel(command.channel_id);
        if (!deps.projects.knows(project)) {
          const projects = describeProjects(deps.projects, command.channel_id, COMMAND);
          return privately(respond, notice(errorCopy.unknownProject(project, projects)));
        }
        const caller = { channel: command.channel_id, userId: command.user_id, project };
        await privately(respond, await answerDigestCommand(deps, caller, parseDigestCommand(digest.words)));
      });
      return;
    }
    const parsed = parseVisitorsCommand(text, deps.now());
    deps.log.info('visitors.command', { user: command.user_id, channel: command.channel_id, parsed: parsed.kind });
    // A chart makes up to 31 requests: like an export, it runs on the background queue.
    const queue = parsed.kind === 'report' && parsed.chart ? deps.background : deps.afterAck;
    await guard(deps, respond, 'command', queue, async () => {
      const projects = describeProjects(deps.projects, command.channel_id, COMMAND);
      if (parsed.kind !== 'report') {
        const problem = parsed.kind === 'invalid' ? parsed.problem : undefined;
        return privately(respond, helpMessage(deps.now(), problem, projects));
      }
      const request = forProject(deps, parsed.request, command.channel_id);
      if (!request) return privately(respond, notice(errorCopy.unknownProject(parsed.request.project ?? '', projects)));
      if (parsed.chart) {
        const tell = (message: SlackMessage) => privately(respond, message);
        return sendChartPrivately(deps, request.project, request, command.user_id, tell);
      }
      const result = await showVisitors(deps, request.project, request);
      await privately(
        respond,
        result.ok
          ? buildReport(result.page, { previous: await previousTotals(deps, request.project, request) })
          : notice(failureText(result.failure, parsed.request)),
      );
    });
  });

  const turnPage = async ({ ack, action, body, respond }: ButtonArgs) => {
    await ack();
    await guard(deps, respond, action.action_id, deps.afterAck, async () => {
      const request = readButton(deps, action, body);
      if (!request) return privately(respond, notice(errorCopy.forgedButton));
      const result = await showVisitors(deps, request.project, request);
      if (!result.ok) return privately(respond, notice(failureText(result.failure, request)));
      const previous = await previousTotals(deps, request.project, request);
      await respond({ replace_original: true, ...buildReport(result.page, { previous }) });
    });
  };
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.prev, turnPage);
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.next, turnPage);

  app.action<BlockAction<ButtonAction>>(ACTION_IDS.share, async ({ ack, action, body, respond, client }) => {
    await ack();
    await guard(deps, respond, action.action_id, deps.afterAck, async () => {
      const request = readButton(deps, action, body);
      const channel = channelOf(body);
      if (!request || !channel) return privately(respond, notice(errorCopy.forgedButton));
      const result = await showVisitors(deps, request.project, request);
      if (!result.ok) return privately(respond, notice(failureText(result.failure, request)));
      const previous = await previousTotals(deps, request.project, request);
      const message = buildReport(result.page, { sharedBy: body.user.id, previous });
      try {
        await client.chat.postMessage({ channel, ...message, unfurl_links: false, unfurl_media: false });
        deps.log.info('visitors.shared', { user: body.user.id, channel, from: request.from, to: request.to });
      } catch (error) {
        const code = slackErrorCode(error);
        deps.log.warn('visitors.share_failed', { channel, code });
        await privately(respond, notice(postFailedText(code)));
      }
    });
  });

  app.action<BlockAction<ButtonAction>>(ACTION_IDS.csv, async ({ ack, action, body, respond }) => {
    await ack();
    // An export makes dozens of requests: it runs on the background queue, never delaying other commands.
    await guard(deps, respond, action.action_id, deps.background, async () => {
      const request = readButton(deps, action, body);
      const channel = channelOf(body);
      if (!request || !channel) return privately(respond, notice(errorCopy.forgedButton));
      await exportVisitorsCsv(deps, request.project, request, {
        channel,
        userId: body.user.id,
        tellPrivately: (message) => privately(respond, message),
      });
    });
  });

  // Charts make up to 31 requests each: on the background queue, like exports.
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.chart, async ({ ack, action, body, respond }) => {
    await ack();
    await guard(deps, respond, action.action_id, deps.background, async () => {
      const request = readButton(deps, action, body);
      if (!request) return privately(respond, notice(errorCopy.forgedButton));
      const tell = (message: SlackMessage) => privately(respond, message);
      await sendChartPrivately(deps, request.project, request, body.user.id, tell);
    });
  });

  app.action<BlockAction<ButtonAction>>(ACTION_IDS.shareChart, async ({ ack, action, body, respond }) => {
    await ack();
    await guard(deps, respond, action.action_id, deps.background, async () => {
      const request = readButton(deps, action, body);
      const channel = channelOf(body);
      if (!request || !channel) return privately(respond, notice(errorCopy.forgedButton));
      const tell = (message: SlackMessage) => privately(respond, message);
      await shareChart(deps, request.project, request, channel, body.user.id, tell);
    });
  });
}

/** The words after `/visitors [--project id] digest`, or undefined when the command is not about digests. */
function digestWords(text: string): { project?: string; words: string[] } | undefined {
  const option = takeProjectOption(text);
  if ('missing' in option) return undefined; // the report parser explains `--project`
  const [first, ...words] = option.rest.toLowerCase().split(/\s+/);
  if (first !== 'digest') return undefined;
  return { ...(option.project && { project: option.project }), words };
}

/**
 * The request a button carries, on its project (reports from before projects were named use the channel's), or
 * undefined (logged) when the value was forged or tampered with, or names a project this bot does not serve.
 */
function readButton(deps: Deps, action: ButtonAction, body: BlockAction): ProjectRequest | undefined {
  const decoded = decodeRequest(action.value, deps.now());
  const channel = channelOf(body);
  const request = decoded && channel ? forProject(deps, decoded, channel) : undefined;
  if (!request) {
    deps.log.warn('visitors.bad_button_value', {
      action: action.action_id,
      user: body.user.id,
      value_length: action.value?.length ?? 0,
    });
  }
  return request;
}

type ProjectRequest = VisitorsRequest & { project: string };

/** The request on its own project or the channel's; undefined when it names a project this bot does not serve. */
function forProject(deps: Deps, request: VisitorsRequest, channel: string): ProjectRequest | undefined {
  const project = request.project ?? deps.projects.forChannel(channel);
  return deps.projects.knows(project) ? { ...request, project } : undefined;
}

function channelOf(body: BlockAction): string | undefined {
  return body.channel?.id ?? body.container?.channel_id;
}

/** A new private message to the person; never replaces the report they are looking at. */
async function privately(respond: RespondFn, message: SlackMessage): Promise<void> {
  await respond({ response_type: 'ephemeral', replace_original: false, ...message });
}

/** Runs a listener body; anything unexpected is logged and answered with a plain private apology. */
async function guard(
  deps: Deps,
  respond: RespondFn,
  what: string,
  queue: Limiter,
  run: () => Promise<void>,
): Promise<void> {
  try {
    await queue(run);
  } catch (error) {
    deps.log.error('visitors.listener_failed', { what, error });
    await respond({
      response_type: 'ephemeral',
      replace_original: false,
      text: errorCopy.listenerFailed,
    }).catch(() => {});
  }
}
