import type { Deps } from '../../deps.js';
import { safeLink } from '../../slack/mrkdwn.js';
import type { DraftState } from '../draft-claim.js';
import { draftCopy } from '../messages.js';

/** A draft's job as a click hears it, linked to its thread when Slack gives the permalink (nothing for none). */
export async function underwayText(
  deps: Pick<Deps, 'slack'>,
  channel: string,
  state: DraftState,
): Promise<string | undefined> {
  if (state.state === 'free') return undefined;
  if (state.state === 'starting') return draftCopy.starting(state.userId);
  const permalink = await deps.slack.chat
    .getPermalink({ channel, message_ts: state.threadTs })
    .then((r) => r.permalink)
    .catch(() => undefined);
  const link = safeLink(permalink, draftCopy.threadLabel);
  return state.state === 'running' ? draftCopy.running(state.userId, link) : draftCopy.ended(link);
}
