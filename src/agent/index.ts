// What other features may use of the agent: how a job's state reads, its hourly quota, the week's feedback, which
// events are a person's message (the guard ladder), which Slack delivered before (an event door's guard), and what a
// start's result says (the composition hands Draft a fix the start itself), and a key or token in text masked as its
// start reads one (`maskSecrets`). Everything else in agent/ is the agent's own.

export { agentTasks, unavailableAnswer } from './agent-tasks.js';
export { startRefusalAnswer } from './answers.js';
export { toIncoming } from './doors/incoming.js';
export { type FeedbackCount, weekFeedback } from './feedback/votes.js';
export {
  formatElapsed,
  jobStatus,
  OPEN_PR_ACTION,
  OUTCOME_EVENT_TYPE,
  openPullRequest,
  pullRequestUrl,
} from './job-messages.js';
export { bindingFromMetadata, JOB_EVENT_TYPE } from './job-metadata.js';
export { errors as agentErrors } from './messages.js';
export { AWAITING_TAKE_UP, MY_JOBS_LISTED, MY_JOBS_WORDS } from './my-jobs.js';
export { HOURLY_LIMIT } from './quota.js';
export { firstEvent, type SeenDeps } from './redelivery.js';
export { CommandStartSchema } from './requests.js';
export { maskSecrets } from './secret-text.js';
export { leaveProcessing } from './session/status.js';
export { noticeModal } from './shortcut-modal.js';
export type { StartJobDeps, StartJobInput, StartJobResult } from './start-job.js';
export { steers } from './steering.js';
export { observationOf } from './tracking/decide.js';
export { outcomeOf } from './tracking/outcome.js';
