// What other features may use of /visitors: its date grammar and periods, the person's zone, number and range
// formatting, and its private one-liners. Everything else in visitors/ is its own.

export { formatChange } from './change.js';
export { csvLine } from './csv.js';
export {
  DEFAULT_ROWS,
  type ParsedCommand,
  parseVisitorsCommand,
  type ReportQuery,
  ReportQuerySchema,
} from './date-range.js';
export { type DoorDeps, zoneOf } from './doors/door.js';
export { formatCount, formatRange } from './format.js';
export { notice, section } from './messages.js';
export { previousPeriod, serviceWindow } from './periods.js';
