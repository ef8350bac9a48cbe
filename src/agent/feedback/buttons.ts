import type { types } from '@slack/bolt';
import { z } from 'zod';
import type { JobRecord } from '../../store/jobs.js';

/** The `action_id` of the 👍/👎 under a job's outcome. */
export const FEEDBACK_ACTION = 'agent.feedback';

/** What a feedback button carries (its `value`): the vote and the job round it is about, with the job's thread. */
export const FeedbackRefSchema = z.object({
  vote: z.enum(['up', 'down']),
  project: z.string().min(1),
  jobId: z.string().min(1),
  round: z.number().int().min(0),
  channel: z.string().min(1),
  threadTs: z.string().min(1),
});
export type FeedbackRef = z.infer<typeof FeedbackRefSchema>;
export type Vote = FeedbackRef['vote'];

type Round = Pick<JobRecord, 'project' | 'jobId' | 'round' | 'channel' | 'threadTs'>;

/** Slack's feedback buttons (a `context_actions` block) under an outcome: 👍 is recorded, 👎 asks what went wrong. */
export function feedbackBlock(record: Round): types.ContextActionsBlock {
  const { project, jobId, round, channel, threadTs } = record;
  const value = (vote: Vote) => JSON.stringify({ vote, project, jobId, round, channel, threadTs });
  return {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: FEEDBACK_ACTION,
        positive_button: {
          text: { type: 'plain_text', text: '👍' },
          value: value('up'),
          accessibility_label: 'The agent did well',
        },
        negative_button: {
          text: { type: 'plain_text', text: '👎' },
          value: value('down'),
          accessibility_label: 'Something went wrong: tell the agent',
        },
      },
    ],
  };
}

/** A button's value read back; undefined when it is not one this app wrote. */
export function readFeedbackValue(value: string | undefined): FeedbackRef | undefined {
  try {
    const parsed = FeedbackRefSchema.safeParse(JSON.parse(value ?? ''));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
