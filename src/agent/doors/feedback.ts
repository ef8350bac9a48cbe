import type {
  AllMiddlewareArgs,
  BlockAction,
  FeedbackButtonsAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import { projectOrigin } from '../../config/projects.js';
import type { Deps } from '../../deps.js';
import { accessOf, submissionVerdict } from '../../slack/access.js';
import { slackErrorCode } from '../../slack/errors.js';
import { agentTasks } from '../agent-tasks.js';
import { unservedRatingAnswer } from '../answers.js';
import { readFeedbackValue } from '../feedback/buttons.js';
import { feedbackModal, parseFeedbackSubmission } from '../feedback/modal.js';
import { recordVote } from '../feedback/votes.js';
import { errors } from '../messages.js';
import type { Turn } from '../requests.js';

type ClickArgs = Pick<
  SlackActionMiddlewareArgs<BlockAction<FeedbackButtonsAction>> & AllMiddlewareArgs,
  'ack' | 'action' | 'body' | 'context'
>;
type SubmissionArgs = Pick<
  SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs,
  'ack' | 'body' | 'view' | 'context'
>;

/**
 * 👍 or 👎 under a job's outcome: the vote is recorded (one per person per round). 👎 first opens "What went
 * wrong?" (the trigger lasts 3 s); its text goes to the job as a follow-up when sent. A value this app did not write
 * is only logged: Slack shows the click itself. Who may not steer the job (the access rule, another organisation)
 * a job of another workspace's connection (a Slack Connect organisation's, whose person acts with their own) and one
 * of a project this workspace no longer serves get a private note instead: no vote, no form.
 */
export async function feedbackClicked(
  deps: Pick<Deps, 'slack' | 'store' | 'log' | 'metrics' | 'instanceId' | 'now' | 'replies' | 'projects' | 'config'>,
  { ack, action, body, context }: ClickArgs,
): Promise<void> {
  await ack();
  const ref = readFeedbackValue(action.value);
  const userId = body.user.id;
  if (!ref) return deps.log.warn('agent.bad_feedback_value', { user: userId, value_length: action.value?.length ?? 0 });
  const audience = { userId, channel: ref.channel, threadTs: ref.threadTs, responseUrl: body.response_url };
  const verdict = accessOf(context);
  if (!verdict.allowed) {
    deps.log.info('agent.refused', { user: userId, channel: ref.channel, door: 'feedback' });
    return deps.replies.privately(audience, errors.notAllowed(undefined, verdict.reason === 'external'));
  }
  if (!deps.projects.knows(ref.project)) {
    // A project this workspace served before (disconnected, changed, taken out of the configuration), or another's.
    const answer = deps.projects.former.includes(ref.project)
      ? unservedRatingAnswer(ref.project, projectOrigin(deps.config))
      : errors.anotherWorkspacesJob();
    return deps.replies.privately(audience, answer);
  }
  if (ref.vote === 'down') {
    const { vote: _, ...round } = ref;
    const messageTs = body.container?.message_ts ?? ref.threadTs;
    try {
      await deps.slack.views.open({ trigger_id: body.trigger_id, view: feedbackModal({ ...round, messageTs }) });
    } catch (error) {
      const code = slackErrorCode(error);
      deps.log.warn('slack.views_open_failed', { op: 'agent.feedback', slack_error: code });
      await deps.replies.privately(audience, errors.formUnavailable(code));
    }
  }
  await recordVote(deps, ref, userId).catch((error: unknown) =>
    deps.log.warn('store.unavailable', { op: 'agent.feedback', error }),
  );
  deps.log.info('agent.feedback', { project: ref.project, job_id: ref.jobId, round: ref.round, vote: ref.vote });
}

/**
 * "Send as follow-up": the text goes to the job exactly as a reply in its thread would (`agent.turn`: the access
 * rule, the hourly follow-ups and the 👀/✅ on the outcome apply); it is addressed to the bot, so it steers a thread
 * the job joined too. An empty text is a field error and the form stays open.
 */
export async function feedbackSubmitted(
  deps: Pick<Deps, 'config' | 'dispatch' | 'slack' | 'log'>,
  { ack, body, view, context }: SubmissionArgs,
): Promise<void> {
  const submission = parseFeedbackSubmission(view.private_metadata, view.state.values);
  if (!submission.ok) return ack({ response_action: 'errors', errors: submission.errors });
  await ack();
  const { origin, text } = submission;
  const userId = body.user.id;
  const verdict = await submissionVerdict(deps, { body, context }, origin.channel);
  const turn: Turn = {
    channel: origin.channel,
    ts: origin.messageTs,
    threadTs: origin.threadTs,
    userId,
    text,
    eventId: `feedback:${view.id}`,
    addressed: false,
    mentionsBot: true,
    allowed: verdict.allowed,
    ...(!verdict.allowed && verdict.reason === 'external' && { external: true }),
  };
  await deps.dispatch(agentTasks.turn, turn);
}
