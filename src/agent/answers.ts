import type { Message } from '../slack/message.js';
import type { FollowUpRefusal } from './follow-up.js';
import { errors } from './messages.js';
import type { StartRefusal } from './start-job.js';

/**
 * What the person who asked reads when a job was not started or an instruction not passed on: one `switch` on the
 * refusal's code per use case, every answer echoing their text so nothing is lost.
 */
export function startRefusalAnswer(refusal: StartRefusal, prompt: string, now: number): Message {
  switch (refusal.code) {
    case 'quota':
      return errors.createLimit(refusal.project, prompt, refusal.resetInMs, now);
    case 'store_unavailable':
      return errors.storeUnavailable(prompt);
    case 'untracked':
      return errors.startedUntracked(prompt);
    case 'interrupted':
      return errors.interrupted(prompt);
    case 'not_in_channel':
      return refusal.directMessage ? errors.notInConversation(prompt) : errors.notInChannel(prompt);
    case 'slack_failed':
      return errors.slackFailed(prompt);
    case 'service':
      return serviceAnswer(refusal.failed, prompt, now, 'create');
  }
}

export function followUpRefusalAnswer(refusal: FollowUpRefusal, prompt: string, now: number): Message {
  switch (refusal.code) {
    case 'quota':
      return errors.followUpLimit(refusal.project, prompt, refusal.resetInMs, now);
    case 'store_unavailable':
      return errors.storeUnavailable(prompt);
    case 'service':
      return serviceAnswer(refusal.failed, prompt, now, 'follow_up', refusal.tracked === true);
  }
}

type ServiceRefusal = Extract<StartRefusal, { code: 'service' }>['failed'];

function serviceAnswer(
  { failure, project }: ServiceRefusal,
  prompt: string,
  now: number,
  op: 'create' | 'follow_up',
  tracked = false,
): Message {
  switch (failure.code) {
    case 'rate_limited': {
      const limit = op === 'create' ? errors.createLimit : errors.followUpLimit;
      // A wait the service did not name is not said as a time.
      return limit(project, prompt, failure.guessed ? undefined : failure.retryAfterMs, now);
    }
    case 'unauthorized':
      return errors.misconfigured(project, prompt);
    case 'not_connected':
      return errors.notConnected(project, prompt);
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
