import { z } from 'zod';
import { defineTask } from '../task.js';

// What App Home's door hands on; `home-work.ts` says what runs it.

/** Who opened which of the app's tabs. */
export const TabOpenedSchema = z.object({ userId: z.string(), tab: z.string() });
export type TabOpened = z.infer<typeof TabOpenedSchema>;

export const homeTasks = {
  /** The person opened one of the app's tabs: remembered, and Home published. Nobody waits on an answer. */
  opened: defineTask({ kind: 'home.opened', lane: 'agent', schema: TabOpenedSchema }),
};
