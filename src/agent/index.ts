// What other features may use of the agent: how a job's state reads, its hourly quota, the week's feedback, and
// which events are a person's message (the guard ladder). Everything else in agent/ is the agent's own.

export { toIncoming } from './doors/incoming.js';
export { type FeedbackCount, weekFeedback } from './feedback/votes.js';
export { formatElapsed, jobStatus } from './job-messages.js';
export { HOURLY_LIMIT, type Quota, type QuotaKind } from './quota.js';
