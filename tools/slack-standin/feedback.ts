import { randomUUID } from 'node:crypto';
import type { SlackStandin } from './server.js';
import type { StoredMessage } from './tenant.js';

type Json = Record<string, unknown>;

export interface FeedbackClick {
  user: string;
  /** The app's message the buttons are on (as stored: channel and ts). */
  message: Pick<StoredMessage, 'channel' | 'ts'>;
  choice: 'positive' | 'negative';
  /** Where Slack's `response_url` for the click points (a stand-in `responseUrl(id)`). */
  responseUrl?: string;
}

/**
 * The `block_actions` payload Slack sends when `user` clicks 👍 or 👎 of the `feedback_buttons` in a
 * `context_actions` block of a stored message: one action of type `feedback_buttons` with the clicked button's
 * `value` and `text` (Bolt's `FeedbackButtonsAction`). `team` is the message's workspace, `user.team_id` the
 * presser's own (a Slack Connect organisation's for one of its people), as Slack sends them. Throws when the
 * message has no feedback buttons.
 */
export function feedbackClick(slack: SlackStandin, click: FeedbackClick): Json {
  const tenant = slack.tenantOf(click.message.channel);
  const stored = tenant.message(click.message.channel, click.message.ts);
  const blocks = (Array.isArray(stored?.blocks) ? stored.blocks : []) as Json[];
  const block = blocks.find((b) => b.type === 'context_actions' && elementsOf(b).some(isFeedback));
  const element = block && elementsOf(block).find(isFeedback);
  if (!stored || !block || !element) throw new Error('that message has no feedback buttons to click');
  const button = element[`${click.choice}_button`] as { text: Json; value: string };
  const { teamId, teamDomain, appId } = tenant.workspace;
  const presserTeam = slack.personIn(tenant, click.user)?.teamId ?? teamId;
  return {
    type: 'block_actions',
    team: { id: teamId, domain: teamDomain },
    user: { id: click.user, team_id: presserTeam },
    api_app_id: appId,
    token: 'legacy-verification-token',
    trigger_id: slack.trigger(),
    container: { type: 'message', message_ts: stored.ts, channel_id: stored.channel, is_ephemeral: false },
    channel: { id: stored.channel },
    message: { type: 'message', ...stored },
    response_url: click.responseUrl ?? slack.responseUrl(`feedback-${randomUUID().slice(0, 8)}`),
    actions: [
      {
        type: 'feedback_buttons',
        action_id: element.action_id,
        block_id: block.block_id ?? 'feedback',
        value: button.value,
        text: button.text,
        action_ts: String(slack.now() / 1000),
      },
    ],
  };
}

const elementsOf = (block: Json) => (Array.isArray(block.elements) ? (block.elements as Json[]) : []);
const isFeedback = (element: Json) => element.type === 'feedback_buttons';
