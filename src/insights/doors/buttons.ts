import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs, types } from '@slack/bolt';
import { agentErrors, noticeModal } from '../../agent/index.js';
import { disconnectedProject } from '../../connected.js';
import type { Deps } from '../../deps.js';
import { accessOf } from '../../slack/access.js';
import { classifySlackError } from '../../slack/errors.js';
import { notice } from '../../slack/message.js';
import { projectNotConnected } from '../../visitors/index.js';
import { ACTION_IDS } from '../blocks.js';
import { type DraftState, draftState } from '../draft-claim.js';
import { draftModal } from '../draft-modal.js';
import { decodeEvidence } from '../evidence.js';
import { insightsTasks } from '../insights-tasks.js';
import { draftCopy, errorText } from '../messages.js';
import { decodePage } from '../requests.js';
import { underwayText } from './underway.js';

export type ButtonArgs = Pick<
  SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs,
  'ack' | 'action' | 'body' | 'context'
>;
type ButtonDeps = Pick<Deps, 'log' | 'projects' | 'replies' | 'dispatch' | 'slack' | 'connection' | 'store' | 'now'>;

function audienceOf(body: ButtonArgs['body']) {
  const channel = body.channel?.id ?? body.container?.channel_id;
  return {
    channel,
    audience: { userId: body.user.id, channel: channel ?? body.user.id, responseUrl: body.response_url },
  };
}

/** Next → (the next page replaces the message it was on) and Download CSV (every row, uploaded here). */
export async function pageButton(deps: ButtonDeps, { ack, action, body }: ButtonArgs): Promise<void> {
  await ack();
  const task = action.action_id === ACTION_IDS.csv ? insightsTasks.export : insightsTasks.turnPage;
  const { channel, audience } = audienceOf(body);
  const page = decodePage(action.value);
  const project = page?.query.project;
  const gone = disconnectedProject(deps, project);
  if (gone) return deps.replies.privately(audience, notice(projectNotConnected(gone)));
  if (!page || !channel || !project || !deps.projects.knows(project)) {
    deps.log.warn('insights.bad_button_value', { action: action.action_id, user: body.user.id });
    return deps.replies.privately(audience, notice(errorText.forgedButton));
  }
  await deps.dispatch(task, { ...page, project, audience });
}

/**
 * Draft a fix: opens the modal at once (Slack's trigger lasts 3 s), with the evidence the button carries; a person
 * the `/agent` allow-lists leave out sees why instead, and a click on a thing whose job is starting or running here
 * sees where it is (`draft-claim.ts`). Without the modal the click did nothing visible: said privately.
 */
export async function draftButton(deps: ButtonDeps, { ack, action, body, context }: ButtonArgs): Promise<void> {
  await ack();
  const { channel, audience } = audienceOf(body);
  const evidence = decodeEvidence(action.value);
  const gone = disconnectedProject(deps, evidence?.project);
  if (gone) return deps.replies.privately(audience, notice(projectNotConnected(gone)));
  if (!evidence || !channel || !deps.projects.knows(evidence.project)) {
    deps.log.warn('insights.bad_button_value', { action: action.action_id, user: body.user.id });
    return deps.replies.privately(audience, notice(errorText.forgedButton));
  }
  const verdict = accessOf(context);
  let view: types.ModalView;
  if (!verdict.allowed) view = noticeModal(agentErrors.notAllowed(undefined, verdict.reason === 'external').text);
  else {
    const subject = { project: evidence.project, channel, evidence };
    const state = await draftState(deps, subject).catch((error): DraftState => {
      // The form opens; its Start job claims the thing, and says so when the store still does not answer.
      deps.log.warn('store.unavailable', { op: 'insights.draft_state', error });
      return { state: 'free' };
    });
    const said = await underwayText(deps, channel, state);
    view =
      said && state.state !== 'ended' ? noticeModal(said) : draftModal({ channel, evidence }, deps.projects.all, said);
  }
  try {
    await deps.slack.views.open({ trigger_id: body.trigger_id, view });
  } catch (error) {
    const failure = classifySlackError(error);
    deps.log.warn('slack.views_open_failed', { op: 'insights.draft', slack_error: failure.code });
    await deps.replies.privately(audience, notice(draftCopy.notOpened(failure)));
  }
}
