// What other features and the composition may use of the visitors: their tasks (what their doors hand on), their
// date grammar and periods, the person's zone, number and range formatting, their private one-liners, one cached page
// of the service's numbers, the `/visitors` words' decoding and door answers the assistant pane reuses, and their
// digests' ending and healing. Everything else in visitors/ is their own.

export { formatChange } from './change.js';
export { csvLine } from './csv.js';
export {
  DEFAULT_ROWS,
  dayString,
  type ParsedCommand,
  parseVisitorsCommand,
  type ReportQuery,
  ReportQuerySchema,
  todayNumber,
} from './date-range.js';
export { healSubscription } from './digest/heal.js';
export { DIGEST_EVENT_TYPE } from './digest/metadata.js';
export { adoptDigests, endDigests } from './digest/scheduler.js';
export { decodeReport } from './doors/command.js';
export { answerAtDoor, type DoorDeps, zoneOf } from './doors/door-kit.js';
export { formatCount, formatRange } from './format.js';
export { notice, section } from './messages.js';
export { comparisonCut, previousPeriod, serviceWindow } from './periods.js';
export { fetchPage, type PageDeps } from './report/page.js';
export { visitorsTasks } from './visitors-tasks.js';
