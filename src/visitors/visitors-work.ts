import { whenConnected } from '../connected.js';
import { runs } from '../task.js';
import { scheduledDigestMissed } from './digest/deliver.js';
import { VISITORS_DIGEST } from './digest/kind.js';
import { runDigestChart, runScheduledDigest } from './digest/send.js';
import { finishProgress } from './export.js';
import { runChart, runDigest, runExport, runReport, runShare, runShareChart, runTurnPage } from './run-requests.js';
import { visitorsTasks } from './visitors-tasks.js';

/**
 * What runs each of the visitors' tasks where its lane is worked (composed in src/app/app.ts). A scheduled digest
 * has no door, so what its subscriber hears when it did not go out is said here, with the digest machinery.
 */
export const visitorsWork = [
  runs(visitorsTasks.report, runReport),
  runs(visitorsTasks.turnPage, runTurnPage),
  runs(visitorsTasks.share, runShare),
  runs(visitorsTasks.digest, runDigest),
  runs(
    { ...visitorsTasks.scheduledDigest, unavailable: scheduledDigestMissed(VISITORS_DIGEST) },
    whenConnected(VISITORS_DIGEST.feature, runScheduledDigest),
  ),
  runs(visitorsTasks.export, runExport),
  runs(visitorsTasks.finishExport, finishProgress),
  runs(visitorsTasks.chart, runChart),
  runs(visitorsTasks.digestChart, runDigestChart),
  runs(visitorsTasks.shareChart, runShareChart),
];
