import { runs } from '../task.js';
import { runInsightsDigest, runScheduledInsightsDigest } from './digest/send.js';
import { insightsTasks } from './insights-tasks.js';
import { runInsights, runInsightsExport, runInsightsPage } from './run.js';

/** What runs each of /insights' tasks where its lane is worked (composed in src/app/dispatch.ts). */
export const insightsWork = [
  runs(insightsTasks.show, runInsights),
  runs(insightsTasks.turnPage, runInsightsPage),
  runs(insightsTasks.export, runInsightsExport),
  runs(insightsTasks.digest, runInsightsDigest),
  runs(insightsTasks.scheduledDigest, runScheduledInsightsDigest),
];
