// What other features and the composition may use of the visitors: their tasks (what their doors hand on), and
// the `/visitors` words' decoding and door answers the assistant pane reuses, and ending a removed workspace's digests.
// Everything else in visitors/ is their own.

export { endDigests } from './digest/scheduler.js';
export { decodeReport } from './doors/command.js';
export { answerAtDoor, zoneOf } from './doors/door-kit.js';
export { visitorsTasks } from './visitors-tasks.js';
