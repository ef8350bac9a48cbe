import type { BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { disconnectedProject } from '../../connected.js';
import { notice } from '../../slack/message.js';
import type { Task } from '../../task.js';
import { ACTION_IDS } from '../blocks.js';
import { decodeQuery } from '../date-range.js';
import { errorCopy, projectNotConnected } from '../messages.js';
import type { ReportRequestSchema } from '../requests.js';
import { visitorsTasks } from '../visitors-tasks.js';
import { answerAtDoor, type DoorDeps, projectOf } from './door-kit.js';

/** The report's buttons. Each carries the report's query as its value; they differ only in what is done with it. */

export type ButtonArgs = Pick<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>, 'ack' | 'action' | 'body'>;

/** The action ids of the report's buttons, old ones included: one door takes them all. */
export const REPORT_BUTTON = /^visitors\./;

/** What each button asks for, by its action id. */
const BUTTON_TASKS: Record<string, Task<typeof ReportRequestSchema>> = {
  // ← Previous and Next →: the neighbouring page replaces the report.
  [ACTION_IDS.prev]: visitorsTasks.turnPage,
  [ACTION_IDS.next]: visitorsTasks.turnPage,
  // Share to channel: the same page, posted in the conversation for everyone.
  [ACTION_IDS.share]: visitorsTasks.share,
  // Download CSV: every row of the range, uploaded in the conversation.
  [ACTION_IDS.csv]: visitorsTasks.export,
  // Chart: the range's trend, sent to the person's DM.
  [ACTION_IDS.chart]: visitorsTasks.chart,
  // Share chart to channel (under a sent chart): the chart, uploaded in the conversation.
  [ACTION_IDS.shareChart]: visitorsTasks.shareChart,
};

/**
 * Acks, reads the query back from the button's value and hands it on with who clicked where. A value that was
 * forged, is stale in shape or out of range, or names a project this bot does not serve is refused (and logged);
 * a button of an older release that no longer exists is only acknowledged.
 */
export async function reportButton(deps: DoorDeps, { ack, action, body }: ButtonArgs): Promise<void> {
  await ack();
  const task = BUTTON_TASKS[action.action_id];
  if (!task) return deps.log.warn('visitors.unknown_button', { action: action.action_id, user: body.user.id });
  const channel = body.channel?.id ?? body.container?.channel_id;
  // A message's button always knows its conversation; without one, a refusal can still reach the person's DM.
  const audience = { userId: body.user.id, channel: channel ?? body.user.id, responseUrl: body.response_url };
  const query = decodeQuery(action.value, deps.now());
  const gone = disconnectedProject(deps, query?.project);
  if (gone) return answerAtDoor(deps, audience, notice(projectNotConnected(gone)));
  const project = query && channel ? projectOf(deps, query, channel) : undefined;
  if (!query || !project) {
    const value_length = action.value?.length ?? 0;
    deps.log.warn('visitors.bad_button_value', { action: action.action_id, user: body.user.id, value_length });
    return answerAtDoor(deps, audience, notice(errorCopy.forgedButton));
  }
  await deps.dispatch(task, { query, project, audience });
}
