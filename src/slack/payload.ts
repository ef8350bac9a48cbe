import { z } from 'zod';

// What the app's middlewares read of any request body Slack sends (a command, an event, a click, a form), narrowed
// once with zod: Bolt types each surface's body apart, and a middleware sees them all. A field of another shape than
// Slack documents reads as absent, as an empty id does. Only the fields named are kept (every request is narrowed
// here: copying the rest cost a third more), but the event keeps all of its own: the gates hand it to the agent's
// reading of a message (`toIncoming`).

const text = z.string().optional().catch(undefined);
const id = z.string().min(1).optional().catch(undefined);
const part = <S extends z.ZodRawShape>(shape: S) => z.object(shape).optional().catch(undefined);

const EventSchema = z.looseObject({
  type: text,
  user: id,
  channel: id,
  thread_ts: id,
  /** A reply's: who wrote its thread's root. A reply also sent to the channel (`thread_broadcast`) has none. */
  parent_user_id: id,
  /** A `thread_broadcast`'s thread root, whose `user` wrote it (docs.slack.dev, events/message/thread_broadcast). */
  root: part({ user: id }),
  user_team: id,
  team: id,
  channel_type: text,
});

const PayloadSchema = z.object({
  type: text,
  command: text,
  text,
  event_id: id,
  user_id: id,
  channel_id: id,
  response_url: id,
  event: EventSchema.optional().catch(undefined),
  user: part({ id, team_id: id }),
  channel: part({ id }),
  container: part({ channel_id: id }),
  /** A submitted form's `state.values`: its input blocks' values, keyed by block id. */
  view: part({
    callback_id: text,
    state: part({ values: z.record(z.string(), z.unknown()).optional().catch(undefined) }),
  }),
  actions: z
    .array(z.object({ action_id: text }))
    .optional()
    .catch(undefined),
});
type Payload = z.infer<typeof PayloadSchema>;
export type PayloadEvent = NonNullable<Payload['event']>;

/** Each body narrowed once: several middlewares read the same request on the path to its ack. */
const narrowed = new WeakMap<object, Payload>();

/** A request body as the middlewares read it; anything but an object reads as an empty one. */
export function payloadOf(body: unknown): Payload {
  if (typeof body !== 'object' || body === null) return {};
  const known = narrowed.get(body);
  if (known) return known;
  const parsed = PayloadSchema.safeParse(body);
  const payload = parsed.success ? parsed.data : {};
  narrowed.set(body, payload);
  return payload;
}

const RemovalEventSchema = z.looseObject({
  type: text,
  tokens: part({ bot: z.array(z.coerce.string()).optional().catch(undefined) }),
  team_ids: z.array(z.coerce.string()).optional().catch(undefined),
});

/** `app_uninstalled`, `tokens_revoked` or `team_access_revoked` as the removal reads it. */
export function removalEventOf(event: unknown): z.infer<typeof RemovalEventSchema> {
  const parsed = RemovalEventSchema.safeParse(event);
  return parsed.success ? parsed.data : {};
}
