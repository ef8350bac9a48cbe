/** A Slack stand-in on 127.0.0.1 for tests and the playground: never used by the app itself. */
export type { Said, SharedFile } from './actions.js';
export { BLOCK_KIT_LIMITS, blockKitProblems } from './block-kit.js';
export { DATA_BLOCK_LIMITS, DATA_BLOCK_TYPES } from './block-kit-data.js';
export * from './delivery.js';
export * from './events.js';
export { type FeedbackClick, feedbackClick } from './feedback.js';
export type { InstallChoice, OAuthApp } from './installs.js';
export { timeZone } from './people.js';
export * from './rate-limits.js';
export * from './server.js';
export * from './socket-mode.js';
export type { AppContext, AssistantThread, MessagingView, SuggestedPrompts, Tenant } from './tenant.js';
export * from './wire.js';
export * from './workspace.js';
