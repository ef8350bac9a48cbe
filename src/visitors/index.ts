// What other features may use of visitors: one cached page of the service's numbers, period arithmetic and how a
// change reads. Everything else in visitors/ is its own.

export { formatChange } from './change.js';
export { dayString, type ReportQuery, todayNumber } from './date-range.js';
export { comparisonCut, previousPeriod } from './periods.js';
export { fetchPage, type PageDeps } from './report/page.js';
