import type { Deps } from '../deps.js';
import { type PageVisitors, VISITORS_MAX_LIMIT, type VisitorCounts } from '../mintlify/schemas.js';
import { slackErrorCode } from '../slack/errors.js';
import type { Audience } from '../slack/reply.js';
import { underLease } from '../store/claims.js';
import { keys } from '../store/keys.js';
import { toCsv } from './csv.js';
import type { FailedFor } from './failures.js';
import { exportCopy } from './messages.js';
import { fetchPage, type PageDeps } from './report/page.js';
import { type ProgressEdit, type ProjectQuery, projectQuery, type ReportRequest } from './requests.js';
import { handBack, retryAfterField, retryAfterOf } from './slack-busy.js';
import { visitorsTasks } from './visitors-tasks.js';

export const EXPORT_MAX_ROWS = 20_000;
/** The progress message is edited after every this many pages (and at the end). */
export const PROGRESS_EVERY_PAGES = 4;
const EXPORT_LEASE_MS = 10 * 60_000;
/** How long the progress message's last edit is tried again while Slack rate-limits it. */
const FINISH_FOR_MS = 10 * 60_000;

type FinishDeps = Pick<Deps, 'slack' | 'log' | 'now' | 'lanes' | 'workspace'>;
type ExportDeps = PageDeps & FinishDeps & Pick<Deps, 'instanceId' | 'stopping'>;

export type ExportResult =
  | { ok: true; rows: number; capped: boolean; fileId?: string }
  | FailedFor<'busy' | 'post_failed' | 'slack_busy' | 'fetch_failed' | 'upload_failed' | 'restarting'>;

interface Rows {
  rows: PageVisitors[];
  totals: VisitorCounts;
  capped: boolean;
}

/**
 * Fetches every page of the range (250 rows each, following `hasMore`, at most 20,000 rows), shows progress
 * in a channel message edited in place, and uploads one CSV into that message's thread. One export of a range
 * runs in a conversation at a time, across replicas.
 */
export async function exportVisitorsCsv(deps: ExportDeps, request: ReportRequest): Promise<ExportResult> {
  const { audience } = request;
  const query = projectQuery(request);
  const lease = keys.visitorsExport(query.project, audience.channel, query.from, query.to, query.tz);
  const holder = { claims: deps.store.claims, owner: deps.instanceId };
  return underLease(holder, lease, EXPORT_LEASE_MS, () => exportWithProgress(deps, query, audience));
}

async function exportWithProgress(deps: ExportDeps, query: ProjectQuery, audience: Audience): Promise<ExportResult> {
  const fields = { channel: audience.channel, from: query.from, to: query.to };
  const progress = await postProgress(deps, fields, exportCopy.progress(query, audience.userId, 0));
  if (!progress.ok) {
    if (progress.reason === 'post_failed')
      deps.log.warn('visitors.export_post_failed', { ...fields, code: progress.code });
    return progress;
  }
  const fetched = await fetchRows(deps, query, (rows) =>
    progress.edit(exportCopy.progress(query, audience.userId, rows)),
  );
  if (!fetched.ok) {
    await progress.finish(fetched.reason === 'restarting' ? exportCopy.restarting(query) : exportCopy.failed(query));
    return fetched;
  }
  const { rows, totals, capped } = fetched;
  let fileId: string | undefined;
  try {
    const uploaded = await deps.slack.filesUploadV2({
      channel_id: audience.channel,
      thread_ts: progress.ts,
      filename: exportCopy.filename(query),
      title: exportCopy.title(query),
      content: toCsv(rows, totals),
      initial_comment: exportCopy.initialComment(query, rows.length, capped),
    });
    fileId = (uploaded.files as { files?: { id?: string }[] }[] | undefined)?.[0]?.files?.[0]?.id;
  } catch (error) {
    const code = slackErrorCode(error);
    deps.log.warn('visitors.export_upload_failed', { ...fields, code });
    await progress.finish(exportCopy.failed(query));
    return { ok: false, reason: 'upload_failed', code, ...retryAfterField(error) };
  }
  await progress.finish(exportCopy.done(query, audience.userId, rows.length, capped));
  deps.log.info('visitors.export', { ...fields, rows: rows.length, capped });
  return { ok: true, rows: rows.length, capped, ...(fileId && { fileId }) };
}

/**
 * The channel message that shows the export's progress, with a way to edit it (a failed edit is only logged: the next
 * one follows) and to `finish` it. Slack's 429 on the post comes back as `slack_busy`: nothing was posted.
 */
async function postProgress(deps: ExportDeps, fields: { channel: string; from: string; to: string }, text: string) {
  const { channel } = fields;
  try {
    const posted = await deps.slack.chat.postMessage({ channel, text });
    if (!posted.ts) throw new Error('chat.postMessage returned no ts');
    const ts = posted.ts;
    const edit = async (text: string) => {
      try {
        await deps.slack.chat.update({ channel, ts, text });
      } catch (error) {
        deps.log.warn('visitors.export_update_failed', { ...fields, code: slackErrorCode(error) });
      }
    };
    const finish = (text: string) => finishProgress(deps, { channel, ts, text, since: deps.now() });
    return { ok: true as const, ts, edit, finish };
  } catch (error) {
    const retryAfterMs = retryAfterOf(error);
    if (retryAfterMs !== undefined) return { ok: false as const, reason: 'slack_busy' as const, retryAfterMs };
    return { ok: false as const, reason: 'post_failed' as const, code: slackErrorCode(error) };
  }
}

/**
 * The progress message's last word ("done", "did not finish"), which must not be lost to Slack's 429: the edit goes
 * back to a lane for Slack's Retry-After, again while Slack asks (up to FINISH_FOR_MS). Other failures are logged.
 */
export async function finishProgress(deps: FinishDeps, edit: ProgressEdit): Promise<void> {
  const { channel, ts, text } = edit;
  try {
    await deps.slack.chat.update({ channel, ts, text });
  } catch (error) {
    const retryAfterMs = retryAfterOf(error);
    const inTime = deps.now() - edit.since < FINISH_FOR_MS;
    if (retryAfterMs !== undefined && inTime && (await handBack(deps, visitorsTasks.finishExport, edit, retryAfterMs)))
      return;
    deps.log.warn('visitors.export_update_failed', { channel, ts, code: slackErrorCode(error) });
  }
}

/**
 * Every row of the range, page by page, up to `EXPORT_MAX_ROWS`; `onProgress` every few pages. When the app begins to
 * stop, the export ends at once (`restarting`) instead of holding the stop for dozens of pages and being cut off.
 */
async function fetchRows(
  deps: PageDeps & Pick<Deps, 'stopping'>,
  query: ProjectQuery,
  onProgress: (rows: number) => Promise<void>,
): Promise<({ ok: true } & Rows) | FailedFor<'fetch_failed' | 'restarting'>> {
  const restarting = { ok: false, reason: 'restarting' } as const;
  const stopped = whenAborted(deps.stopping, restarting);
  try {
    return await fetchUntil(deps, query, onProgress, stopped.promise);
  } finally {
    stopped.dispose();
  }
}

async function fetchUntil(
  deps: PageDeps & Pick<Deps, 'stopping'>,
  query: ProjectQuery,
  onProgress: (rows: number) => Promise<void>,
  stopped: Promise<FailedFor<'restarting'>>,
): Promise<({ ok: true } & Rows) | FailedFor<'fetch_failed' | 'restarting'>> {
  const rows: PageVisitors[] = [];
  // A page's rows can move to the next while the range is still counting: each path is kept once, the first time.
  const seen = new Set<string>();
  let totals: VisitorCounts = { human: 0, ai: 0, total: 0 };
  let capped = false;
  // The contract pages by the limit ("increment offset by limit while hasMore"), however many rows a page held.
  for (let offset = 0, pages = 0; ; offset += VISITORS_MAX_LIMIT, pages++) {
    const page = fetchPage(deps, query.project, { ...query, limit: VISITORS_MAX_LIMIT, offset }, { cache: false });
    const result = await Promise.race([page, stopped]);
    if ('reason' in result) return result;
    if (deps.stopping?.aborted) return { ok: false, reason: 'restarting' };
    if (!result.ok) return { ok: false, reason: 'fetch_failed', failure: result.failure };
    const { hasMore } = result.page.response;
    const visitors = result.page.response.visitors.filter((row) => !seen.has(row.path) && seen.add(row.path));
    totals = result.page.response.totals;
    const room = EXPORT_MAX_ROWS - rows.length;
    capped = visitors.length > room || (visitors.length === room && hasMore);
    rows.push(...visitors.slice(0, room));
    if (capped || !hasMore || result.page.response.visitors.length === 0) return { ok: true, rows, totals, capped };
    if ((pages + 1) % PROGRESS_EVERY_PAGES === 0) await onProgress(rows.length);
  }
}

/** A promise of `value` once `signal` aborts (never without one), and a way to stop listening. */
function whenAborted<T>(signal: AbortSignal | undefined, value: T) {
  let dispose = () => {};
  const promise = new Promise<T>((resolve) => {
    if (!signal) return;
    if (signal.aborted) return resolve(value);
    const listener = () => resolve(value);
    signal.addEventListener('abort', listener, { once: true });
    dispose = () => signal.removeEventListener('abort', listener);
  });
  return { promise, dispose };
}
