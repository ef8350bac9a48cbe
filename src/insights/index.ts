// What the rest of the app uses of /insights: its doors' registration and its task kinds' work (src/tasks.ts).

export { draftButton } from './blocks.js';
export type { Evidence } from './evidence.js';
export { registerInsights } from './register.js';
export { InsightsRequestSchema } from './requests.js';
export { insightsUnavailable, runInsights, runInsightsExport, runInsightsPage } from './tasks.js';
