// What the rest of the app uses of /insights: its doors' registration and its tasks' work (src/app/dispatch.ts).

export { insightsWork } from './insights-work.js';
export { registerInsights } from './register.js';
