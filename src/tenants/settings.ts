import { z } from 'zod';
import { keys } from '../store/keys.js';
import type { Store } from '../store/store.js';
import type { ConnectionChange, Steward } from './connection-log.js';
import type { SealedRecords } from './sealed.js';
import { fingerprint } from './secrets.js';

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

export function publicSettings({ apiKey, ...rest }: MintlifySettings): PublicSettings {
  return { ...rest, fingerprint: fingerprint(apiKey) };
}

export const readSettings = (records: SealedRecords) => records.get(keys.mintlifySettings(), MintlifySettingsSchema);

export const saveSettings = (records: SealedRecords, settings: MintlifySettings) =>
  records.set(keys.mintlifySettings(), MintlifySettingsSchema.parse(settings));

export const deleteSettings = (store: Pick<Store, 'kv'>) => store.kv.delete(keys.mintlifySettings());
