import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs, types } from '@slack/bolt';
import { agentErrors, noticeModal, shortcutModal } from '../../agent/index.js';
import type { Deps } from '../../deps.js';
import { accessOf } from '../../slack/access.js';
import { slackErrorCode } from '../../slack/errors.js';
import { escapeMrkdwn, inlineCode } from '../../slack/mrkdwn.js';
import { UpdatePageValueSchema } from '../blocks.js';

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/** A click whose button no longer says which page (another version's, or altered). */
export const LOST_PAGE = 'This button lost track of its page. Paste the link again to get a fresh one.';

/** The instruction the form starts with: the page named, the rest for the person to write. */
export const updateInstruction = (path: string) => `Update the page ${path}: `;

/**
 * "Update this page" on a docs link's unfurl: the agent's form, its instruction naming the page and the project
 * preset; submitted, it starts a job in the thread of the message holding the link, as the message shortcut does.
 */
export async function updatePage(deps: Pick<Deps, 'slack' | 'log' | 'projects'>, args: ButtonArgs): Promise<void> {
  const { ack, body, action, context } = args;
  await ack();
  const open = (view: types.ModalView) =>
    deps.slack.views
      .open({ trigger_id: body.trigger_id, view })
      .catch((error) =>
        deps.log.warn('slack.views_open_failed', { op: 'unfurls.update', slack_error: slackErrorCode(error) }),
      );
  const value = UpdatePageValueSchema.safeParse(parseJson(action.value));
  const channel = body.container.channel_id ?? body.channel?.id;
  const messageTs = body.container.message_ts ?? body.message?.ts;
  if (!accessOf(context).allowed || !value.success || !channel || !messageTs) {
    deps.log.info('unfurls.update_refused', { user: body.user.id, readable: value.success });
    const allowed = accessOf(context).allowed;
    await open(noticeModal(allowed ? LOST_PAGE : agentErrors.notAllowed().text));
    return;
  }
  const { project, path } = value.data;
  const modal = shortcutModal({
    origin: { channel, threadTs: body.message?.thread_ts ?? messageTs },
    text: updateInstruction(path),
    projects: deps.projects.all,
    project: deps.projects.knows(project) ? project : deps.projects.forChannel(channel),
  });
  const about: types.KnownBlock = {
    type: 'section',
    text: { type: 'mrkdwn', text: `Page ${inlineCode(path)} of project ${escapeMrkdwn(project)}.` },
  };
  // The shortcut's form, its first block (the message it quotes) replaced by the page it is about.
  await open({ ...modal, blocks: [about, ...modal.blocks.slice(1)] });
}

function parseJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}
