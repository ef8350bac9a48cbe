/** A Slack stand-in on 127.0.0.1 for tests and the playground: never used by the app itself. */
export { BLOCK_KIT_LIMITS, blockKitProblems } from './block-kit.js';
export * from './server.js';
export * from './socket-mode.js';
export * from './wire.js';
export * from './workspace.js';
