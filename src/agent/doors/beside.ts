import type { Deps } from '../../deps.js';
import { parseVisitorsCommand, type ReportBeside, zoneOf } from '../../visitors/index.js';
import { agentTasks } from '../agent-tasks.js';
import { firstEvent, type SeenDeps } from '../redelivery.js';
import type { Turn } from '../requests.js';
import type { Incoming } from './incoming.js';
import { type EventDelivery, turnOf } from './turn.js';

export type BesideDeps = Pick<Deps, 'slack' | 'store' | 'log' | 'dispatch' | 'now' | 'projects' | 'replies'> & SeenDeps;

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
  if (await reportedBeside(deps, turn, channel ?? turn.channel, reportBeside)) return;
  await deps.dispatch(agentTasks.pane, { turn, ...(channel && { contextChannel: channel }) });
}

/**
 * `visitors [range]` (the suggested prompt; `/visitors` does not run in a thread): a report on the project of `place`,
 * by the visitors' door the composition gives, once per event (Slack's redelivery is not answered again). False,
 * nothing done, when the turn is not one: what follows `visitors` does not read as a report or its help ("Visitors
 * who sign in should…" is an instruction), or the turn is in a job's thread (where it is the job's, as any reply).
 */
export async function reportedBeside(
  deps: BesideDeps,
  turn: Turn,
  place: string,
  reportBeside: ReportBeside,
): Promise<boolean> {
  const asked = VISITORS_WORDS.exec(turn.text);
  const words = asked?.[2];
  if (!asked || words === undefined) return false;
  // Typed as the command (`/visitors …`), or a range that starts with a number (`visitors 400d`): a report, its
  // mistakes answered as the command's are; otherwise only words that read as a report.
  const meant = asked[1] === '/' || /^\s*\d/.test(words) || HELP_ALONE.test(words);
  const read = meant || parseVisitorsCommand(words, deps.now(), await zoneOf(deps, turn.userId)).kind === 'report';
  if (!read || (await inJobThread(deps, turn))) return false;
  if (await firstEvent(deps, turn)) await reportBeside(deps, turn, words, place);
  return true;
}

/** `visitors help` as the command's help; `help` among other words (“Visitors help page: …”) is an instruction. */
const HELP_ALONE = /^\s*(help|\?|-h|--help)\s*$/i;

/** `visitors [range]`, `/visitors [range]`: the `/visitors` words after it. */
const VISITORS_WORDS = /^\s*(\/?)visitors\b([\s\S]*)$/i;

/** Whether the turn is a reply in a job's thread; without the store, taken as not (a report does not need it). */
async function inJobThread(deps: BesideDeps, { channel, threadTs }: Turn): Promise<boolean> {
  if (!threadTs) return false;
  // the store guard counts the failure.
  const job = await deps.store.jobs.forThread(deps.projects.all, channel, threadTs).catch(() => undefined);
  return job !== undefined;
}
