// What other features may use of the agent: how a job's state reads, its hourly quota, and which events are a
// person's message (the guard ladder). Everything else in agent/ is the agent's own.

export { toIncoming } from './doors/incoming.js';
export { formatElapsed, jobStatus } from './job-messages.js';
export { errors as agentErrors } from './messages.js';
export { HOURLY_LIMIT, type Quota, type QuotaKind } from './quota.js';
export { noticeModal } from './shortcut-modal.js';
export { CommandStartSchema } from './tasks.js';
