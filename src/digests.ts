import { INSIGHTS_DIGEST } from './insights/index.js';
import { VISITORS_DIGEST } from './visitors/index.js';

/** Every feature's digest: each worker's start schedules them, a workspace's removal ends them, healing rebuilds them. */
export const DIGEST_KINDS = [VISITORS_DIGEST, INSIGHTS_DIGEST] as const;
