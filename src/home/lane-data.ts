import { z } from 'zod';
import { WorkspaceRefSchema } from '../workspace-ref.js';

/** Whose Home to publish again, in which workspace: the `homes` lane's data. */
export const HomeDataSchema = z.object({ workspace: WorkspaceRefSchema, userId: z.string() });
export type HomeData = z.infer<typeof HomeDataSchema>;
