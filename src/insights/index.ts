// What the rest of the app uses of /insights: its doors' registration and its tasks' work (src/app/dispatch.ts).

export { draftButton } from './blocks.js';
export type { Evidence } from './evidence.js';
export { insightsWork } from './insights-work.js';
export { registerInsights } from './register.js';
