import { deliverDigest, runScheduled } from './deliver.js';
import { manageDigest } from './subscribe.js';

/**
 * What another feature's digest shares of the visitors' digests: posting an occurrence, running a scheduler's
 * occurrence, and showing, ending or setting a subscription. The composition (`src/app/app.ts`' `WORK`) hands it to
 * /insights' digest work, so no feature stands on the visitors' digest posting.
 */
export const digestMachinery = { deliverDigest, runScheduled, manageDigest };
export type DigestMachinery = typeof digestMachinery;
