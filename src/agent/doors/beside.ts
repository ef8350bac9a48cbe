import type { Deps } from '../../deps.js';
import type { ReportBeside } from '../../visitors/index.js';
import { agentTasks } from '../agent-tasks.js';
import { MY_JOBS_WORDS } from '../my-jobs.js';
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
  reportBeside: ReportBeside,
): Promise<void> {
  const turn = await turnOf(deps, incoming, delivery, true);
  const asked = VISITORS_WORDS.exec(turn.text);
  // A report on the project of the channel the person is looking at (the visitors' door, given by the composition).
  if (asked) return reportBeside(deps, turn, asked[1] ?? '', channel ?? turn.channel);
  await deps.dispatch(agentTasks.pane, { turn, ...(channel && { contextChannel: channel }) });
}

/** `visitors [range]` (the suggested prompt; `/visitors` does not run in a thread): the `/visitors` words. */
const VISITORS_WORDS = /^\s*\/?visitors\b([\s\S]*)$/i;

/** The Messages tab's suggested prompts that are not instructions (`manifest.yml`, `paneCopy.prompts`). */
export const isPrompt = (text: string) => VISITORS_WORDS.test(text) || MY_JOBS_WORDS.test(text);
