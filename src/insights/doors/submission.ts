import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { agentErrors } from '../../agent/index.js';
import { disconnectedProject } from '../../connected.js';
import type { Deps } from '../../deps.js';
import { submissionVerdict } from '../../slack/access.js';
import { claimDraft } from '../draft-claim.js';
import { INSTRUCTION_BLOCK, parseDraft, repeatedModal } from '../draft-modal.js';
import { insightsTasks } from '../insights-tasks.js';
import { draftCopy } from '../messages.js';
import { underwayText } from './underway.js';

type SubmissionArgs = Pick<
  SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs,
  'ack' | 'body' | 'view' | 'context'
>;

/**
 * The Draft a fix form: starts the job exactly as `/agent` does (its root in the channel, tracked to its PR), with
 * the person's instruction and the readers' evidence quoted below it as evidence, never as instructions. One job per
 * thing in a channel: a form submitted while another's job for it starts or runs is told where it is instead. A
 * project no longer served (disconnected since the form opened) is a field error: never another project's job.
 */
export async function draftSubmission(
  deps: Pick<Deps, 'config' | 'projects' | 'dispatch' | 'log' | 'slack' | 'store' | 'now' | 'connection'>,
  { ack, body, view, context }: SubmissionArgs,
): Promise<void> {
  const draft = parseDraft(view.private_metadata, view.state.values);
  if (!draft.ok) return ack({ response_action: 'errors', errors: draft.errors });
  const { origin, instruction } = draft;
  const userId = body.user.id;
  const verdict = await submissionVerdict(deps, { body, context }, origin.channel);
  if (!verdict.allowed) {
    const refusal = agentErrors.notAllowed(undefined, verdict.reason === 'external').text;
    return ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: refusal } });
  }
  const project = draft.project ?? origin.evidence.project;
  if (!deps.projects.knows(project)) {
    const gone = draftCopy.projectGone(project, disconnectedProject(deps, project) !== undefined);
    return ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: gone } });
  }
  const { evidence, channel } = origin;
  const claimed = await claimDraft(deps, { project, channel, evidence }, userId).catch((error: unknown) => {
    deps.log.warn('store.unavailable', { op: 'insights.draft_claim', error });
    return undefined;
  });
  if (!claimed) return ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: draftCopy.storeUnavailable } });
  if (!claimed.ok) {
    const said = (await underwayText(deps, channel, claimed.state)) ?? '';
    deps.log.info('insights.draft_repeated', { user: userId, channel, kind: evidence.kind, project });
    return ack({ response_action: 'update', view: repeatedModal(said, instruction) });
  }
  await ack();
  deps.log.info('insights.draft_submitted', {
    user: userId,
    channel: origin.channel,
    kind: origin.evidence.kind,
    project,
  });
  const audience = { userId, channel };
  await deps.dispatch(insightsTasks.draft, { project, instruction, evidence, audience, owner: claimed.owner });
}
