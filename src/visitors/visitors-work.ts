import { runs } from '../task.js';
import { runScheduledDigest } from './digest/send.js';
import { runChart, runDigest, runExport, runReport, runShare, runShareChart, runTurnPage } from './run-requests.js';
import { visitorsTasks } from './visitors-tasks.js';

/** What runs each of the visitors' tasks where its lane is worked (composed in src/app/app.ts). */
export const visitorsWork = [
  runs(visitorsTasks.report, runReport),
  runs(visitorsTasks.turnPage, runTurnPage),
  runs(visitorsTasks.share, runShare),
  runs(visitorsTasks.digest, runDigest),
  runs(visitorsTasks.scheduledDigest, runScheduledDigest),
  runs(visitorsTasks.export, runExport),
  runs(visitorsTasks.chart, runChart),
  runs(visitorsTasks.shareChart, runShareChart),
];
