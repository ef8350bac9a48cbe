import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { keys } from '../store/keys.js';
import { underClaim } from '../store/lists.js';
import type { Store } from '../store/store.js';
import { type ConnectionChange, ConnectionChangeSchema, StewardSchema } from './connection.js';

export const ConnectionLogSchema = z.object({
  steward: StewardSchema.optional(),
  /** The latest changes, oldest first. */
  changes: z.array(ConnectionChangeSchema),
});
export type ConnectionLog = z.infer<typeof ConnectionLogSchema>;

/** How many changes a workspace keeps (App Home shows the last few). */
export const CHANGES_KEPT = 50;

type LogStore = Pick<Store, 'kv' | 'claims'>;

/** The workspace's log; empty when nothing was recorded (an install from before the log existed). */
export async function readConnectionLog(store: Pick<Store, 'kv'>): Promise<ConnectionLog> {
  const parsed = ConnectionLogSchema.safeParse(await store.kv.get(keys.connectionLog()));
  return parsed.success ? parsed.data : { changes: [] };
}

async function changeLog(store: LogStore, change: (log: ConnectionLog) => ConnectionLog): Promise<void> {
  await underClaim(store, keys.connectionLogLock(), randomUUID(), async () => {
    const next = change(await readConnectionLog(store));
    await store.kv.set(keys.connectionLog(), { ...next, changes: next.changes.slice(-CHANGES_KEPT) });
  });
}

/**
 * An installation was stored. The first install of a workspace makes its installer the steward; a later one (the
 * same or another person adding the app again) is only recorded, as is one into a workspace whose log already has
 * changes (its installation's record was lost, not its history).
 */
export function recordInstall(store: LogStore, user: string, at: number, first: boolean): Promise<void> {
  return changeLog(store, (log) => {
    if (!first || log.changes.length > 0) {
      return { ...log, changes: [...log.changes, { change: 'reinstalled', user, at }] };
    }
    return { steward: { userId: user, as: 'installer' }, changes: [{ change: 'installed', user, at }] };
  });
}

/** Mintlify was connected, changed or disconnected in App Home: the person who did it is the steward now. */
export function recordChange(store: LogStore, change: ConnectionChange): Promise<void> {
  return changeLog(store, (log) => ({
    steward: { userId: change.user, as: 'connector' },
    changes: [...log.changes, change],
  }));
}
