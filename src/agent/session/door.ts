import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { accessOf } from '../../slack/access.js';
import { agentTasks } from '../agent-tasks.js';
import { firstEvent, type SeenDeps } from '../redelivery.js';

type StoppedArgs = SlackEventMiddlewareArgs<'agent_session_stopped'> & AllMiddlewareArgs;

/**
 * A person pressed Stop on a job's agent session (`agent_session_stopped`, shown while it is `processing`): handed on
 * as `agent.stop` with the access rule's verdict, so a person who may not steer the job hears so as a reply would.
 * Once per press: Slack's redelivery of it is not handed on again.
 */
export async function sessionStopped(
  deps: Pick<Deps, 'dispatch'> & SeenDeps,
  { event, body, context }: StoppedArgs,
): Promise<void> {
  if (!event.user || !event.channel || !event.thread_ts) return;
  if (!(await firstEvent(deps, { eventId: body.event_id, retryNum: context.retryNum }))) return;
  const verdict = accessOf(context);
  await deps.dispatch(agentTasks.stop, {
    userId: event.user,
    channel: event.channel,
    threadTs: event.thread_ts,
    allowed: verdict.allowed,
    ...(!verdict.allowed && verdict.reason === 'external' && { external: true }),
  });
}
