import { deliverDigest, runScheduled, scheduledDigestMissed } from './deliver.js';
import { healSubscription } from './heal.js';
import { adoptDigests, endDigests, endSubscription } from './scheduler.js';
import { manageDigest } from './subscribe.js';

/**
 * What other features share of the visitors' digests: posting an occurrence, running a scheduler's occurrence (and
 * telling its subscriber one that did not go out), showing, ending or setting a subscription, and every kind's
 * schedulers adopted, ended or a subscription healed.
 * The composition (`src/app/app.ts`) hands it to /insights' digest work, to `healing/` and to a workspace's removal,
 * so no feature stands on the visitors' digest posting and schedulers.
 */
export const digestMachinery = {
  deliverDigest,
  runScheduled,
  scheduledDigestMissed,
  manageDigest,
  adoptDigests,
  endDigests,
  endSubscription,
  healSubscription,
};
export type DigestMachinery = typeof digestMachinery;
