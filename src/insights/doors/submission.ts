import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { agentErrors, agentTasks } from '../../agent/index.js';
import type { Deps } from '../../deps.js';
import { submissionVerdict } from '../../slack/access.js';
import { INSTRUCTION_BLOCK, parseDraft } from '../draft-modal.js';
import { fixPrompt } from '../evidence.js';

type SubmissionArgs = Pick<
  SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs,
  'ack' | 'body' | 'view' | 'context'
>;

/**
 * The Draft a fix form: starts the job exactly as `/agent` does (its root in the channel, tracked to its PR), with
 * the person's instruction and the readers' evidence quoted below it as evidence, never as instructions.
 */
export async function draftSubmission(
  deps: Pick<Deps, 'config' | 'projects' | 'dispatch' | 'log' | 'slack'>,
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
  await ack();
  const chosen = draft.project ?? origin.evidence.project;
  const project = deps.projects.knows(chosen) ? chosen : deps.projects.forChannel(origin.channel);
  deps.log.info('insights.draft_submitted', {
    user: userId,
    channel: origin.channel,
    kind: origin.evidence.kind,
    project,
  });
  const audience = { userId, channel: origin.channel };
  await deps.dispatch(agentTasks.start, { project, prompt: fixPrompt(instruction, origin.evidence), audience });
}
