import { z } from 'zod';
import type { DayRange } from '../periods.js';
import { VISITORS_DIGEST } from './kind.js';
import { CADENCES, ScheduleSchema } from './schedule.js';
import type { Subscription } from './store.js';

/**
 * What a digest post carries besides its period: its whole subscription, so a store that lost it can set it up
 * again from the channel's last digest (`healing/`). Flat, as Slack shows metadata in its tools.
 */
const DigestPayloadSchema = z.object({
  cadence: z.enum(CADENCES),
  from: z.string(),
  project: z.string().min(1),
  hour: z.number(),
  minute: z.number(),
  weekday: z.number().optional(),
  tz: z.string().optional(),
  created_by: z.string(),
  created_at: z.number(),
});

export function digestMetadata(
  { project, schedule, createdBy, createdAt }: Subscription,
  period: DayRange,
  kind = VISITORS_DIGEST,
) {
  const payload: z.infer<typeof DigestPayloadSchema> = {
    cadence: schedule.cadence,
    from: period.from,
    project,
    hour: schedule.hour,
    minute: schedule.minute,
    ...(schedule.weekday !== undefined && { weekday: schedule.weekday }),
    ...(schedule.tz && { tz: schedule.tz }),
    created_by: createdBy,
    created_at: createdAt,
  };
  return { event_type: kind.eventType, event_payload: payload };
}

/**
 * The subscription a digest post in `channel` was sent for; `undefined` for a post that does not say (one sent
 * before digests carried their subscription, or a payload that no longer fits).
 */
export function subscriptionFromMetadata(payload: unknown, channel: string): Subscription | undefined {
  const parsed = DigestPayloadSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  const { cadence, hour, minute, weekday, tz } = parsed.data;
  const schedule = ScheduleSchema.safeParse({ cadence, hour, minute, weekday, tz });
  if (!schedule.success) return undefined;
  const { project, created_by: createdBy, created_at: createdAt } = parsed.data;
  return { channel, project, schedule: schedule.data, createdBy, createdAt };
}
