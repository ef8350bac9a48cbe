import { z } from 'zod';
import { AudienceSchema } from '../slack/reply.js';
import { type ReportQuery, ReportQuerySchema } from './date-range.js';
import { ScheduleSchema } from './digest/schedule.js';

/**
 * What the doors hand on: plain data (JSON in, JSON out), decoded once at the door and checked again where the work
 * runs, which may be another process. Nothing here is Slack wire text or a Bolt payload.
 */

/** A report's range and page on the project it is about: `--project`, the button's, else the channel's. */
export type ProjectQuery = ReportQuery & { project: string };

/** The report and everything done with it (a page, share, CSV, chart): which page, and who asked where. */
export const ReportRequestSchema = z.object({
  /** As asked: typed after `/visitors`, or carried by a button (with `project` once the report named it). */
  query: ReportQuerySchema,
  /** The project it is about: the query's own, else the channel's. */
  project: z.string(),
  audience: AudienceSchema,
  /** How many times Slack's 429 handed this work back to its lane (`slack-busy.ts`). */
  slackBusy: z.number().int().min(1).optional(),
});
export type ReportRequest = z.infer<typeof ReportRequestSchema>;

/** The query the work runs on: the request's, on its project. */
export function projectQuery({ query, project }: ReportRequest): ProjectQuery {
  return { ...query, project };
}

/** An export's progress message and its last words, whose edit Slack's 429 put off since `since` (ms). */
export const ProgressEditSchema = z.object({
  channel: z.string(),
  ts: z.string(),
  text: z.string(),
  since: z.number(),
});
export type ProgressEdit = z.infer<typeof ProgressEditSchema>;

/** A digest's chart Slack's 429 put off (`digest/send.ts`), with when its digest went out. */
export const DigestChartSchema = z.object({
  project: z.string(),
  range: ReportQuerySchema,
  where: z.object({ channel: z.string(), sharedBy: z.string(), text: z.string(), comment: z.string() }),
  since: z.number(),
});
export type DigestChart = z.infer<typeof DigestChartSchema>;

/** `/visitors digest …` once understood: show, end or set this conversation's digest of `project`. */
export const DigestRequestSchema = z.object({
  command: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('show') }),
    z.object({ kind: z.literal('off') }),
    z.object({ kind: z.literal('subscribe'), schedule: ScheduleSchema }),
  ]),
  /** The project a new subscription reports on: `--project`, else the channel's. */
  project: z.string(),
  audience: AudienceSchema,
  /** Asked in a group DM, where Slack tells the bot about the conversation only with `mpim:read` (not asked for). */
  groupDm: z.boolean().optional(),
  /** The command as typed (`/visitors digest weekly fri 16:30`), echoed where the digest cannot be set up. */
  typed: z.string().optional(),
});
export type DigestRequest = z.infer<typeof DigestRequestSchema>;

/** An occurrence of a digest subscription's scheduler: the conversation whose digest is due. */
export const ScheduledDigestSchema = z.object({ channel: z.string() });
export type ScheduledDigest = z.infer<typeof ScheduledDigestSchema>;
