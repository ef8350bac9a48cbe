import { z } from 'zod';

/** Files a message may carry to the agent at most; more are left out (Slack allows 10 per message). */
const MAX_FILES = 10;

/** A file shared with a message, as the agent's request needs it (from the event's `files[]`, decoded at the door). */
export const SharedFileSchema = z.object({
  id: z.string(),
  name: z.string(),
  mimetype: z.string().optional(),
  filetype: z.string().optional(),
  /** `snippet`: text made in Slack. */
  mode: z.string().optional(),
  size: z.number().optional(),
  /** Where Slack serves it to the app, with the bot token (`files:read`). */
  urlPrivate: z.string().optional(),
  permalink: z.string().optional(),
  /** Slack named only the file (a Slack Connect channel's event): `files.info` says the rest. */
  askInfo: z.boolean().optional(),
});
export type SharedFile = z.infer<typeof SharedFileSchema>;

const text = z.string().optional().catch(undefined);
const WireFileSchema = z
  .object({
    id: z.string().min(1),
    name: text,
    title: text,
    mimetype: text,
    filetype: text,
    mode: text,
    size: z.number().optional().catch(undefined),
    url_private: text,
    permalink: text,
    file_access: text,
  })
  .transform((f) => ({
    id: f.id,
    name: f.name || f.title || f.id,
    ...(f.mimetype && { mimetype: f.mimetype }),
    ...(f.filetype && { filetype: f.filetype }),
    ...(f.mode && { mode: f.mode }),
    ...(f.size !== undefined && { size: f.size }),
    ...(f.url_private && { urlPrivate: f.url_private }),
    ...(f.permalink && { permalink: f.permalink }),
    ...(f.file_access === 'check_file_info' && { askInfo: true }),
  }));

/** A deleted or access-restricted file comes as a stub: nothing to send. */
const GONE_MODES = new Set(['tombstone', 'hidden_by_limit']);

/** A file as Slack describes it (an event's `files[]` entry, `files.info`'s `file`); undefined when it cannot be sent. */
export function sharedFileOf(wire: unknown): SharedFile | undefined {
  const parsed = WireFileSchema.safeParse(wire);
  return parsed.success && !GONE_MODES.has(parsed.data.mode ?? '') ? parsed.data : undefined;
}

/** The files of a message event (`files[]`, subtype `file_share`); an entry Slack could not describe is left out. */
export function sharedFilesOf(files: unknown): SharedFile[] {
  if (!Array.isArray(files)) return [];
  return files.flatMap((f) => sharedFileOf(f) ?? []).slice(0, MAX_FILES);
}
