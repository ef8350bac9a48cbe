// What other features may use of the visitors: their date grammar and periods, the person's zone, number and range
// formatting, their private one-liners, door answers, one cached page of the service's numbers, and the types of what
// the composition hands other features (the digest machinery, the reading of `digest …` words, a report asked
// beside a channel; `digest/machinery.ts`, `doors/read-command.ts`, `doors/report-beside.ts`), so that no feature
// stands on the visitors' tasks, doors or schedulers. Everything else in visitors/ is their own.

export { todayNumber } from '../zone.js';
export { formatChange } from './change.js';
export { csvDocument } from './csv.js';
export {
  DEFAULT_ROWS,
  type ParsedCommand,
  parseVisitorsCommand,
  plainPunctuation,
  type ReportQuery,
  ReportQuerySchema,
} from './date-range.js';
export { dayString } from './days.js';
export type { DeliverDeps, DigestOutcome } from './digest/deliver.js';
export { type DigestKind, VISITORS_DIGEST } from './digest/kind.js';
export type { DigestMachinery } from './digest/machinery.js';
export { digestAnswer, digestCopy, digestUnavailable } from './digest/messages.js';
export { describeSchedule, digestPeriod } from './digest/schedule.js';
export { getSubscription, type Subscription } from './digest/store.js';
export { answerAtDoor, type DoorDeps, inGroupDm, zoneOf } from './doors/door-kit.js';
export type { Asker, DigestReading, DigestWords } from './doors/read-command.js';
export type { ReportBeside } from './doors/report-beside.js';
export { formatCount, formatRange, waitWords } from './format.js';
export { projectNotConnected, refusalText, slackBusyFile, UNKNOWN_PROJECT } from './messages.js';
export { comparisonCut, type DayRange, previousPeriod, serviceWindow } from './periods.js';
export { fetchPage, type PageDeps } from './report/page.js';
export { type DigestRequest, DigestRequestSchema, ScheduledDigestSchema } from './requests.js';
export { retryAfterField } from './slack-busy.js';
