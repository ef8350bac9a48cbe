import { runs } from '../task.js';
import type { DigestMachinery } from '../visitors/index.js';
import { runInsightsDigest, runScheduledInsightsDigest } from './digest/send.js';
import { insightsTasks } from './insights-tasks.js';
import { runInsights, runInsightsExport, runInsightsPage } from './run.js';

/**
 * What runs each of /insights' tasks where its lane is worked (composed in src/app/app.ts, which gives the visitors'
 * digest machinery its digest shares).
 */
export const insightsWork = (digests: DigestMachinery) => [
  runs(insightsTasks.show, runInsights),
  runs(insightsTasks.turnPage, runInsightsPage),
  runs(insightsTasks.export, runInsightsExport),
  runs(insightsTasks.digest, runInsightsDigest(digests)),
  runs(insightsTasks.scheduledDigest, runScheduledInsightsDigest(digests)),
];
