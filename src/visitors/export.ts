import type { Deps } from '../deps.js';
import { type PageVisitors, VISITORS_MAX_LIMIT, type VisitorCounts } from '../mintlify/schemas.js';
import { NOT_IN_CHANNEL, slackErrorCode } from '../slack/errors.js';
import { toCsv } from './csv.js';
import type { VisitorsRequest } from './date-range.js';
import { errorCopy, exportCopy, notice, type SlackMessage } from './messages.js';
import { failureText, showVisitors } from './report.js';

export const EXPORT_MAX_ROWS = 20_000;
/** The progress message is edited after every this many pages (and at the end). */
export const PROGRESS_EVERY_PAGES = 4;
const EXPORT_LEASE_MS = 10 * 60_000;

export interface ExportTarget {
  /** Conversation the button was clicked in; the progress message and the file go there. */
  channel: string;
  userId: string;
  /** Sends a private message to the person who clicked. */
  tellPrivately: (message: SlackMessage) => Promise<void>;
}

export type ExportResult =
  | { ok: true; rows: number; capped: boolean; fileId?: string }
  | { ok: false; reason: 'busy' | 'post_failed' | 'fetch_failed' | 'upload_failed' };

/**
 * Fetches every page of the range (250 rows each, following `hasMore`, at most 20,000 rows), shows progress
 * in a channel message edited in place, and uploads one CSV into that message's thread.
 */
export async function exportVisitorsCsv(
  deps: Deps,
  project: string,
  request: VisitorsRequest,
  target: ExportTarget,
): Promise<ExportResult> {
  const { log, slack } = deps;
  const lease = `visitors:export:${project}:${target.channel}:${request.from}:${request.to}`;
  if (!(await deps.store.claims.claim(lease, deps.instanceId, EXPORT_LEASE_MS))) {
    await target.tellPrivately(notice(exportCopy.busy));
    return { ok: false, reason: 'busy' };
  }
  const fields = { channel: target.channel, from: request.from, to: request.to };
  try {
    let ts: string;
    try {
      const posted = await slack.chat.postMessage({
        channel: target.channel,
        text: exportCopy.progress(request, target.userId, 0),
      });
      if (!posted.ts) throw new Error('chat.postMessage returned no ts');
      ts = posted.ts;
    } catch (error) {
      const code = slackErrorCode(error);
      log.warn('visitors.export_post_failed', { ...fields, code });
      await target.tellPrivately(notice(postFailedText(code)));
      return { ok: false, reason: 'post_failed' };
    }
    const update = async (text: string) => {
      try {
        await slack.chat.update({ channel: target.channel, ts, text });
      } catch (error) {
        log.warn('visitors.export_update_failed', { ...fields, code: slackErrorCode(error) });
      }
    };

    const rows: PageVisitors[] = [];
    let totals: VisitorCounts = { human: 0, ai: 0, total: 0 };
    let capped = false;
    for (let offset = 0, pages = 0; ; pages++) {
      const pageRequest = { ...request, limit: VISITORS_MAX_LIMIT, offset };
      const result = await showVisitors(deps, project, pageRequest, { cache: false });
      if (!result.ok) {
        await update(exportCopy.failed(request));
        await target.tellPrivately(notice(failureText(result.failure, request)));
        return { ok: false, reason: 'fetch_failed' };
      }
      const { visitors, hasMore } = result.page.response;
      totals = result.page.response.totals;
      const room = EXPORT_MAX_ROWS - rows.length;
      capped = visitors.length > room || (visitors.length === room && hasMore);
      rows.push(...visitors.slice(0, room));
      if (capped || !hasMore || visitors.length === 0) break;
      offset += visitors.length;
      if ((pages + 1) % PROGRESS_EVERY_PAGES === 0)
        await update(exportCopy.progress(request, target.userId, rows.length));
    }

    let fileId: string | undefined;
    try {
      const uploaded = await slack.filesUploadV2({
        channel_id: target.channel,
        thread_ts: ts,
        filename: exportCopy.filename(request),
        title: exportCopy.title(request),
        content: toCsv(rows, totals),
        initial_comment: exportCopy.initialComment(request, rows.length, capped),
      });
      fileId = (uploaded.files as { files?: { id?: string }[] }[] | undefined)?.[0]?.files?.[0]?.id;
    } catch (error) {
      const code = slackErrorCode(error);
      log.warn('visitors.export_upload_failed', { ...fields, code });
      await update(exportCopy.failed(request));
      await target.tellPrivately(notice(exportCopy.uploadFailed(code)));
      return { ok: false, reason: 'upload_failed' };
    }
    await update(exportCopy.done(request, target.userId, rows.length, capped));
    log.info('visitors.export', { ...fields, rows: rows.length, capped });
    return { ok: true, rows: rows.length, capped, ...(fileId && { fileId }) };
  } finally {
    await deps.store.claims.release(lease, deps.instanceId).catch(() => {});
  }
}

export function postFailedText(code: string): string {
  return NOT_IN_CHANNEL.has(code) ? errorCopy.notInChannel : errorCopy.postFailed(code);
}
