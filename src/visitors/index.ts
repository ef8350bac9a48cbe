// What other features may use of /visitors: its date grammar and periods, the person's zone, number and range
// formatting, its private one-liners, and one cached page of the service's numbers. Everything else in visitors/ is
// its own.

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
export { type DoorDeps, zoneOf } from './doors/door.js';
export { formatCount, formatRange } from './format.js';
export { notice, section } from './messages.js';
export { comparisonCut, previousPeriod, serviceWindow } from './periods.js';
export { fetchPage, type PageDeps } from './report/page.js';
