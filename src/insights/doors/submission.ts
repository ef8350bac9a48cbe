import type { SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { agentErrors } from '../../agent/index.js';
import type { Deps } from '../../deps.js';
import { verdictFor } from '../../slack/access.js';
import { INSTRUCTION_BLOCK, parseDraft } from '../draft-modal.js';
import { fixPrompt } from '../evidence.js';

type SubmissionArgs = Pick<SlackViewMiddlewareArgs<ViewSubmitAction>, 'ack' | 'body' | 'view'>;

/**
 * The Draft a fix form: starts the job exactly as `/agent` does (its root in the channel, tracked to its PR), with
 * the person's instruction and the readers' evidence quoted below it as evidence, never as instructions.
 */
export async function draftSubmission(
  deps: Pick<Deps, 'config' | 'projects' | 'dispatch' | 'log'>,
  { ack, body, view }: SubmissionArgs,
): Promise<void> {
  const draft = parseDraft(view.private_metadata, view.state.values);
  if (!draft.ok) return ack({ response_action: 'errors', errors: draft.errors });
  const { origin, instruction } = draft;
  const userId = body.user.id;
  if (!verdictFor(deps.config, { userId, channel: origin.channel }).allowed) {
    return ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: agentErrors.notAllowed().text } });
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
  await deps.dispatch('agent.start', { project, prompt: fixPrompt(instruction, origin.evidence), audience });
}
