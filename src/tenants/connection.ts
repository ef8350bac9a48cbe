import { z } from 'zod';

// A workspace's link to Mintlify as data: what was connected, who may change it, the changes made (a leaf: `Deps`
// names `Connection`).

/** The Mintlify project and admin key a workspace connected in App Home, as stored (sealed whole). */
export const MintlifySettingsSchema = z.object({
  projectId: z.string(),
  /** Channels served by another project than `projectId`. */
  channelProjects: z.record(z.string(), z.string()),
  /** The project's docs site (https), when given: links to it are unfurled. */
  docsUrl: z.string().optional(),
  /** A secret: never logged, shown or put in a view; `fingerprint` names it. */
  apiKey: z.string(),
  /** Who connected or last changed it, and when (ms). */
  changedBy: z.string(),
  changedAt: z.number(),
});
export type MintlifySettings = z.infer<typeof MintlifySettingsSchema>;

/** What a workspace may show of its settings: the key only as its fingerprint. */
export type PublicSettings = Omit<MintlifySettings, 'apiKey'> & { fingerprint: string };

/** The projects `settings` route channels to besides its own, as a change records them (none: absent). */
export function routedOf(settings: Pick<MintlifySettings, 'projectId' | 'channelProjects'>): { routed?: string[] } {
  const routed = [...new Set(Object.values(settings.channelProjects))].filter((p) => p !== settings.projectId);
  return routed.length ? { routed } : {};
}

/** One change to a workspace's link to Mintlify: who, when, which project. Never the key. */
export const ConnectionChangeSchema = z.object({
  change: z.enum(['installed', 'reinstalled', 'connected', 'changed', 'disconnected']),
  user: z.string(),
  at: z.number(),
  project: z.string().optional(),
  /**
   * The other projects channels were routed to (a `disconnected`: those it ended), so a reply in one of their jobs'
   * threads is told the project is not connected any more. Absent from changes recorded before it was kept.
   */
  routed: z.array(z.string()).optional(),
  /** A `changed` that replaced the key (not only the project or routes). */
  keyChanged: z.boolean().optional(),
});
export type ConnectionChange = z.infer<typeof ConnectionChangeSchema>;

/**
 * Whose connection it is besides the admins and owners: the person who installed the app first, until someone
 * connects Mintlify; then whoever connected, changed or disconnected it last. Installing again changes nothing.
 */
export const StewardSchema = z.object({ userId: z.string(), as: z.enum(['installer', 'connector']) });
export type Steward = z.infer<typeof StewardSchema>;

/**
 * A workspace's link to Mintlify (many-workspace mode): what was connected, if anything, who may change it besides
 * the admins and owners (none known: only they), and the latest changes.
 */
export interface Connection {
  steward?: Steward;
  settings?: PublicSettings;
  changes: ConnectionChange[];
  /** Settings are stored but no encryption key this process has opens them: reported, not taken for "none". */
  unreadable?: true;
}
