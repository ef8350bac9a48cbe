import { type ProjectOrigin, projectOrigin } from '../config/projects.js';
import type { Deps } from '../deps.js';
import { POSTING_SUSPENDED } from '../slack/errors.js';
import type { Message } from '../slack/message.js';
import { inlineCode } from '../slack/mrkdwn.js';
import type { FollowUpRefusal } from './follow-up.js';
import { errors, withPrompt } from './messages.js';
import type { StartRefusal } from './start-job.js';
import { unserved } from './unserved.js';

/**
 * What the person who asked reads when a job was not started or an instruction not passed on: one `switch` on the
 * refusal's code per use case, every answer echoing their text so nothing is lost.
 */
export function startRefusalAnswer(refusal: StartRefusal, prompt: string, deps: AnswerDeps): Message {
  switch (refusal.code) {
    case 'quota':
      return errors.createLimit(refusal.project, prompt, refusal.resetInMs, deps.now());
    case 'store_unavailable':
      return errors.storeUnavailable(prompt);
    case 'untracked':
      return errors.startedUntracked(prompt);
    case 'interrupted':
      return errors.interrupted(prompt);
    case 'not_in_channel':
      return refusal.directMessage ? errors.notInConversation(prompt) : errors.notInChannel(prompt);
    case 'post_restricted':
      return postRestrictedAnswer(refusal.slackError, prompt);
    case 'slack_failed':
      return errors.slackFailed(prompt);
    case 'service':
      return serviceAnswer(refusal.failed, prompt, deps, 'create');
    case 'secret':
      return secretAnswer(prompt);
  }
}

export function followUpRefusalAnswer(refusal: FollowUpRefusal, prompt: string, deps: AnswerDeps): Message {
  switch (refusal.code) {
    case 'quota':
      return errors.followUpLimit(refusal.project, prompt, refusal.resetInMs, deps.now());
    case 'store_unavailable':
      return errors.storeUnavailable(prompt);
    case 'service':
      return serviceAnswer(refusal.failed, prompt, deps, 'follow_up', refusal.tracked === true);
    case 'secret':
      return secretAnswer(prompt);
  }
}

/** Said privately to a person whose message for a job of a project no longer served was not sent (`unserved.ts`). */
export function unservedAnswer(project: string, prompt: string, origin: ProjectOrigin): Message {
  const { gone, remedy } = unserved(origin);
  return withPrompt(`:electric_plug: Project ${inlineCode(project)} ${gone}, so nothing was sent. ${remedy}`, prompt);
}

/** Said privately to a person who rated a result of a project no longer served: nothing recorded, no form. */
export function unservedRatingAnswer(project: string, origin: ProjectOrigin): Message {
  const { gone, remedy } = unserved(origin);
  return {
    text: `:electric_plug: Project ${inlineCode(project)} ${gone}, so your rating of this result was not recorded and nothing was sent to the agent. ${remedy}`,
  };
}

/** Said privately when the text holds what looks like a key or token (`secret-text.ts`): the echo masks it. */
const secretAnswer = (prompt: string): Message =>
  withPrompt(
    ':closed_lock_with_key: Part of this looks like a Mintlify admin key or a Slack token, so I did not send it to the agent or post it. Take it out and try again. If others can see your message, delete it and replace the key.',
    prompt,
  );

/** The channel's posting settings refused the root (`POST_RESTRICTED`): trying again will not help. */
const postRestrictedAnswer = (slackError: string, prompt: string): Message =>
  withPrompt(
    slackError === POSTING_SUSPENDED
      ? `:warning: Slack's administrators have suspended my posting (${inlineCode(slackError, 60)}), so I didn't start the job: nothing I post would arrive. A Slack admin of your organisation can lift it.`
      : `:warning: Slack does not let me post in this channel (${inlineCode(slackError, 60)}), so I didn't start the job: its settings let only some members post here, or only in threads. Run the command in another channel I'm in, or in my Messages tab (open Mintlify under Apps).`,
    prompt,
  );

/** What an answer reads besides the refusal: the time (a limit's reset) and where projects are set. */
type AnswerDeps = Pick<Deps, 'now'> & { config: Pick<Deps['config'], 'oauth'> };

type ServiceRefusal = Extract<StartRefusal, { code: 'service' }>['failed'];

function serviceAnswer(
  { failure, project }: ServiceRefusal,
  prompt: string,
  deps: AnswerDeps,
  op: 'create' | 'follow_up',
  tracked = false,
): Message {
  switch (failure.code) {
    case 'rate_limited': {
      const limit = op === 'create' ? errors.createLimit : errors.followUpLimit;
      // A wait the service did not name is not said as a time.
      return limit(project, prompt, failure.guessed ? undefined : failure.retryAfterMs, deps.now());
    }
    case 'unauthorized':
      return errors.misconfigured(project, prompt);
    case 'not_connected':
      return unservedAnswer(project, prompt, projectOrigin(deps.config));
    case 'refused':
      return errors.invalid(prompt, failure.message);
    case 'not_found':
      // A create's path names only the project; a follow-up's names the job too.
      return op === 'create' ? errors.projectUnknown(project, prompt) : errors.jobGone(prompt);
    case 'unavailable':
      if (!failure.ambiguous) return errors.unavailable(prompt);
      return op === 'create' ? errors.maybeStarted(prompt, failure) : errors.maybeDelivered(prompt, failure, tracked);
  }
}
