import type { Deps } from '../../deps.js';
import { visitorsTasks } from '../visitors-tasks.js';
import { answerAtDoor, zoneOf } from './door-kit.js';
import { decodeReport } from './read-command.js';

export type ReportBesideDeps = Pick<Deps, 'slack' | 'store' | 'log' | 'dispatch' | 'now' | 'projects' | 'replies'>;

/** Where the words were written: the person, their DM's channel and the thread answered in. */
export interface AskedBeside {
  userId: string;
  channel: string;
  ts: string;
  threadTs?: string | undefined;
}

/**
 * `/visitors` words spoken to the bot next to a channel (the agent's pane or Messages tab): a report on the project of
 * `place`, answered privately in the message's thread. The composition hands it to the agent's doors.
 */
export async function reportBeside(
  deps: ReportBesideDeps,
  asked: AskedBeside,
  words: string,
  place: string,
): Promise<void> {
  const audience = { userId: asked.userId, channel: asked.channel, threadTs: asked.threadTs ?? asked.ts };
  const decoded = decodeReport(deps, words, { audience, tz: await zoneOf(deps, asked.userId) }, place);
  if ('answer' in decoded) return answerAtDoor(deps, audience, decoded.answer);
  await deps.dispatch(visitorsTasks[decoded.task], decoded.request);
}

export type ReportBeside = typeof reportBeside;
