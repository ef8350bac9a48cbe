// What other features and the composition may use of the visitors: their tasks (what their doors hand on), and
// the `/visitors` words' decoding and door answers the assistant pane reuses.
// Everything else in visitors/ is their own.

export { decodeReport } from './doors/command.js';
export { answerAtDoor, zoneOf } from './doors/door.js';
export { visitorsTasks } from './visitors-tasks.js';
