import type { FollowUps } from '../config/config.js';
import { type JobBinding, type ThreadKind, threadKindOf } from '../store/jobs.js';
import type { Steer } from './job-messages.js';

/** Emoji as Slack writes them in text (`:tada:`, `:+1::skin-tone-2:`): not words. */
const SHORTCODE = /:[a-z0-9_+'-]+:/gi;

/** Whether a message has words (a letter or a digit) once its emoji are left out; emoji and punctuation have none. */
export function hasWords(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text.replace(SHORTCODE, ' '));
}

/** What the rule reads of a message: its decoded text, whether it mentions the bot, how many files it shares. */
export interface Said {
  text: string;
  mentionsBot?: boolean | undefined;
  files?: readonly unknown[] | undefined;
}

/** Words or a file: what can be an instruction at all. */
export const isInstruction = (said: Said): boolean => hasWords(said.text) || (said.files?.length ?? 0) > 0;

/**
 * Who steers a job, one rule for every door (docs/agent.md#who-steers-a-job): in the bot's own thread (the `/agent`
 * root, a DM, the shortcut's thread) a person's reply is a follow-up; in a thread the job joined (a mention inside
 * a discussion) only a message that mentions the bot is; `AGENT_FOLLOW_UPS=mention` requires the mention in both.
 * A message without words or files is never an instruction.
 */
export function steers(thread: ThreadKind, said: Said, followUps: FollowUps): boolean {
  if (!isInstruction(said)) return false;
  return !!said.mentionsBot || (thread === 'own' && followUps === 'reply');
}

/** How a person steers the job of `record`'s thread, as its hints say it (`Steer`). */
export function steerOf(record: Pick<JobBinding, 'thread' | 'threadTs' | 'statusTs'>, followUps: FollowUps): Steer {
  return threadKindOf(record) === 'own' && followUps === 'reply' ? 'reply' : 'mention';
}
