import { whenConnected } from '../connected.js';
import { runs } from '../task.js';
import type { DigestMachinery } from '../visitors/index.js';
import { INSIGHTS_DIGEST } from './digest/kind.js';
import { runInsightsDigest, runScheduledInsightsDigest } from './digest/send.js';
import { type JobStarts, resumeDraftStart, runDraftStart } from './draft-start.js';
import { insightsTasks } from './insights-tasks.js';
import { runInsights, runInsightsExport, runInsightsPage } from './run.js';

/**
 * What runs each of /insights' tasks where its lane is worked (composed in src/app/app.ts, which gives the visitors'
 * digest machinery its digest shares, and what a subscriber hears when a scheduled digest did not go out; and the
 * agent's start, for Draft a fix).
 */
export const insightsWork = (digests: DigestMachinery, starts: JobStarts) => [
  runs(insightsTasks.show, runInsights),
  runs(insightsTasks.turnPage, runInsightsPage),
  runs(insightsTasks.export, runInsightsExport),
  runs(insightsTasks.draft, runDraftStart(starts), resumeDraftStart(starts)),
  runs(insightsTasks.digest, runInsightsDigest(digests)),
  runs(
    { ...insightsTasks.scheduledDigest, unavailable: digests.scheduledDigestMissed(INSIGHTS_DIGEST) },
    whenConnected(INSIGHTS_DIGEST.feature, runScheduledInsightsDigest(digests)),
  ),
];
