import { z } from 'zod';
import { WorkspaceRefSchema } from '../../workspace-ref.js';

// The data of the tracking lanes (`src/lanes.ts`): plain JSON, checked when added and again when run.

/** A poll's data: which round of which job, and what the previous poll of that round saw. */
export const PollDataSchema = z.object({
  workspace: WorkspaceRefSchema,
  project: z.string(),
  jobId: z.string(),
  round: z.number().int().min(0),
  /** The interval this round is polled at now (it grows while nothing changes). */
  intervalMs: z.number().int().positive(),
  lastStatus: z.string().nullable(),
  /** When the root message was last refreshed, or a new elapsed time asked for (refused or not): one ask a window. */
  refreshedAt: z.number(),
});
export type PollData = z.infer<typeof PollDataSchema>;

const OutcomeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('pull_request'), prLink: z.string(), updated: z.boolean() }),
  z.object({ kind: z.literal('no_changes') }),
  z.object({ kind: z.literal('failed') }),
  z.object({ kind: z.literal('archived'), prLink: z.string().optional() }),
  z.object({ kind: z.literal('gone') }),
  z.object({ kind: z.literal('expired') }),
  z.object({ kind: z.literal('disconnected') }),
]);

/** An ended round's outcome to post, and how long Slack has refused it for now. */
export const DeliveryDataSchema = z.object({
  workspace: WorkspaceRefSchema,
  project: z.string(),
  jobId: z.string(),
  round: z.number().int().min(0),
  outcome: OutcomeSchema,
  failing: z.object({ since: z.number().optional(), retryDelayMs: z.number().optional() }),
});
export type DeliveryData = z.infer<typeof DeliveryDataSchema>;

/** A root message to bring up to date; `stateChanged` also tells the views that follow a job's state (App Home). */
export const RefreshDataSchema = z.object({
  workspace: WorkspaceRefSchema,
  project: z.string(),
  jobId: z.string(),
  stateChanged: z.boolean(),
});
export type RefreshData = z.infer<typeof RefreshDataSchema>;
