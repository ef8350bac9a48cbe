import type { Deps } from '../../deps.js';
import { answerAtDoor, decodeReport, visitorsTasks, zoneOf } from '../../visitors/index.js';
import { agentTasks } from '../agent-tasks.js';
import type { Turn } from '../requests.js';
import type { Incoming } from './incoming.js';
import { type EventDelivery, turnOf } from './turn.js';

export type BesideDeps = Pick<Deps, 'slack' | 'store' | 'log' | 'dispatch' | 'now' | 'projects' | 'replies'>;

/**
 * A person's message to the agent next to a channel: in the assistant pane's thread (`assistant_view`), or in the
 * Messages tab (`agent_view`). Spoken to the bot, as a DM is: `visitors …` is a report, anything else is handed on
 * with the channel the person is looking at (`agent.pane`), whose project it uses.
 */
export async function besideChannel(
  deps: BesideDeps,
  incoming: Incoming,
  delivery: EventDelivery,
  channel: string | undefined,
): Promise<void> {
  const turn = await turnOf(deps, incoming, delivery, true);
  const asked = VISITORS_WORDS.exec(turn.text);
  if (asked) return visitors(deps, turn, asked[1] ?? '', channel);
  await deps.dispatch(agentTasks.pane, { turn, ...(channel && { contextChannel: channel }) });
}

/** `visitors [range]` (the suggested prompt; `/visitors` does not run in a thread): the `/visitors` words. */
const VISITORS_WORDS = /^\s*\/?visitors\b([\s\S]*)$/i;

/** A report on the project of the channel the person is looking at, answered privately in the message's thread. */
async function visitors(deps: BesideDeps, turn: Turn, words: string, place = turn.channel): Promise<void> {
  const audience = { userId: turn.userId, channel: turn.channel, threadTs: turn.threadTs ?? turn.ts };
  const decoded = decodeReport(deps, words, { audience, tz: await zoneOf(deps, turn.userId) }, place);
  if ('answer' in decoded) return answerAtDoor(deps, audience, decoded.answer);
  await deps.dispatch(visitorsTasks[decoded.task], decoded.request);
}
