import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { accessOf } from '../../slack/access.js';

type StoppedArgs = SlackEventMiddlewareArgs<'agent_session_stopped'> & AllMiddlewareArgs;

/**
 * A person pressed Stop on a job's agent session (`agent_session_stopped`, shown while it is `processing`): handed on
 * as `agent.stop` with the access rule's verdict, so a person who may not steer the job hears so as a reply would.
 */
export async function sessionStopped(deps: Pick<Deps, 'dispatch'>, { event, context }: StoppedArgs): Promise<void> {
  if (!event.user || !event.channel || !event.thread_ts) return;
  const verdict = accessOf(context);
  await deps.dispatch('agent.stop', {
    userId: event.user,
    channel: event.channel,
    threadTs: event.thread_ts,
    allowed: verdict.allowed,
    ...(!verdict.allowed && verdict.reason === 'external' && { external: true }),
  });
}
