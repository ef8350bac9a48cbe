import { z } from 'zod';
import { AudienceSchema } from '../slack/reply.js';
import { SharedFileSchema } from './attached-files.js';

// What the agent's doors hand on (see `agent-tasks.ts`): plain data (JSON in, JSON out), decoded once at the door and
// checked again where the work runs, which may be another process. Nothing here is Slack wire text or a Bolt payload.

/** What the modal carries from the shortcut to its submission (`private_metadata`). */
export const OriginSchema = z.object({
  channel: z.string().min(1),
  /** The thread the job goes to: the message's own thread, or the one it was written in. */
  threadTs: z.string().min(1),
  /** The message was a reply in a discussion: the job joins that thread (only a mention steers it there). */
  inDiscussion: z.boolean().optional(),
  permalink: z.string().optional(),
  /** The message the form was opened on: read again at the start, for the agent (an older form names none). */
  messageTs: z.string().optional(),
});
export type Origin = z.infer<typeof OriginSchema>;

/** `/agent <instruction>`: the instruction decoded, the project chosen, and where to answer. */
export const CommandStartSchema = z.object({ project: z.string(), prompt: z.string(), audience: AudienceSchema });
export type CommandStart = z.infer<typeof CommandStartSchema>;

/**
 * One message of a conversation (a mention, a DM, a reply in a thread), decoded at its door: plain text and what
 * is needed to route it and answer the person. It is the data of the `agent.turn` task.
 */
export const TurnSchema = z.object({
  channel: z.string(),
  ts: z.string(),
  /** The thread it was written in; unset for a top-level message (or a thread's root). */
  threadTs: z.string().optional(),
  userId: z.string(),
  /** What the person wrote, decoded (people by name), the bot's own mention removed; may be empty. */
  text: z.string(),
  /** Slack's ids of the delivery (`event_id`, a retry's number) and of the message (`client_msg_id`). */
  eventId: z.string(),
  clientMsgId: z.string().optional(),
  retryNum: z.number().optional(),
  /** Spoken to the bot (a mention, a DM): outside a job's thread it starts a job; otherwise it only follows one up. */
  addressed: z.boolean(),
  /** The text mentioned the bot: what steers a job in a thread it joined (see `steering.ts`). */
  mentionsBot: z.boolean().optional(),
  /** Files shared with the message: read for the agent past the door (`file-context.ts`). */
  files: z.array(SharedFileSchema).optional(),
  /** The access rule's verdict for this person in this conversation. */
  allowed: z.boolean(),
  /** Refused because the person is from another organisation (Slack Connect), which the refusal says. */
  external: z.boolean().optional(),
  /** This bot, whose own posts are left out of a thread's context. */
  botUserId: z.string().optional(),
  botId: z.string().optional(),
});
export type Turn = z.infer<typeof TurnSchema>;

/** A message in the pane's thread, and the channel the person is looking at (if any): the data of `agent.pane`. */
export const PaneTurnSchema = z.object({ turn: TurnSchema, contextChannel: z.string().optional() });
export type PaneTurn = z.infer<typeof PaneTurnSchema>;

/** A submitted form as the agent's work receives it: who, what, where, on which project. */
export const ShortcutSubmissionSchema = z.object({
  userId: z.string(),
  origin: OriginSchema,
  instruction: z.string(),
  project: z.string(),
});
export type ShortcutSubmission = z.infer<typeof ShortcutSubmissionSchema>;

/**
 * A person asking to stop a job: Slack's Stop on the thread's agent session (`threadTs` set), or `/agent stop`
 * (none: their latest job still running in `channel`). `allowed` is the access rule's verdict at the door: who may
 * not steer a job may not stop it either, and hears so as a reply would.
 */
export const StopRequestSchema = z.object({
  userId: z.string(),
  channel: z.string(),
  threadTs: z.string().optional(),
  allowed: z.boolean(),
  external: z.boolean().optional(),
  responseUrl: z.string().optional(),
});
export type StopRequest = z.infer<typeof StopRequestSchema>;
