import type { Deps } from '../deps.js';
import type { ServiceFailure } from '../mintlify/failure.js';
import { slackErrorCode } from '../slack/errors.js';
import { underLease } from '../store/claims.js';
import { keys } from '../store/keys.js';
import { csvDocument, formatRange, retryAfterField } from '../visitors/index.js';
import { type LoadDeps, loadFeedback, loadSearches, loadUnanswered } from './load.js';
import type { InsightsRequest } from './requests.js';

// Download CSV under a view: every row of its range, walking the service's cursors, uploaded in the conversation.
// Readers' words go through csvCell, which keeps a spreadsheet from running them as formulas.

/** The service's pages an export of searches walks at most (100 terms each; conversations as the digest does). */
export const EXPORT_MAX_PAGES = 20;
/** How long an export's lease holds should its process die mid-export (released as soon as it ends). */
const EXPORT_LEASE_MS = 10 * 60_000;

export type ExportDeps = LoadDeps & Pick<Deps, 'slack' | 'store' | 'instanceId'>;
export type ExportResult =
  | { ok: true; rows: number }
  | { ok: false; reason: 'busy' }
  | { ok: false; reason: 'fetch_failed'; failure: ServiceFailure }
  | { ok: false; reason: 'upload_failed'; code: string; retryAfterMs?: number };
type Lines =
  | { ok: true; lines: (string | number)[][] }
  | { ok: false; reason: 'fetch_failed'; failure: ServiceFailure };

async function feedbackLines(deps: LoadDeps, request: InsightsRequest): Promise<Lines> {
  const loaded = await loadFeedback(deps, request.project, { ...request.query, limit: 250, offset: 0 });
  if (!loaded.ok) return { ok: false, reason: 'fetch_failed', failure: loaded.failure };
  const header = ['path', 'thumbs_down', 'previous_thumbs_down', 'thumbs_up', 'comments'];
  const rows = loaded.value.rows.map((r) => [
    r.path,
    r.thumbsDown,
    r.previousDown ?? '',
    r.thumbsUp,
    r.comments.join(' | '),
  ]);
  return { ok: true, lines: [header, ...rows] };
}

async function searchLines(deps: LoadDeps, request: InsightsRequest): Promise<Lines> {
  const lines: (string | number)[][] = [['term', 'hits', 'ctr', 'clicked_instead']];
  let cursor: string | undefined;
  for (let page = 0; page < EXPORT_MAX_PAGES; page++) {
    const loaded = await loadSearches(deps, request.project, { ...request.query, limit: 100 }, cursor);
    if (!loaded.ok) return { ok: false, reason: 'fetch_failed', failure: loaded.failure };
    lines.push(...loaded.value.rows.map((r) => [r.term, r.hits, r.ctr, r.clicked ?? '']));
    cursor = loaded.value.nextCursor;
    if (!cursor) break;
  }
  return { ok: true, lines };
}

async function questionLines(deps: LoadDeps, request: InsightsRequest): Promise<Lines> {
  const loaded = await loadUnanswered(deps, request.project, request.query);
  if (!loaded.ok) return { ok: false, reason: 'fetch_failed', failure: loaded.failure };
  const header = ['asked_at', 'topic', 'question', 'sources_tried', 'page_url'];
  const rows = loaded.value.turns.map((turn) => [
    turn.timestamp,
    turn.queryCategory ?? '',
    turn.query,
    turn.sources.map((s) => s.url).join(' '),
    turn.pageUrl ?? '',
  ]);
  return { ok: true, lines: [header, ...rows] };
}

/**
 * Every row of the view's range as one CSV, uploaded where it was asked, with who asked for it. One export of a
 * view's range runs in a conversation at a time, across replicas: a second click while it runs is `busy`.
 */
export async function exportInsightsCsv(deps: ExportDeps, request: InsightsRequest): Promise<ExportResult> {
  const { view, query, project, audience } = request;
  const lease = keys.insightsExport(project, audience.channel, view, query.from, query.to, query.tz);
  const holder = { claims: deps.store.claims, owner: deps.instanceId };
  return underLease(holder, lease, EXPORT_LEASE_MS, () => exportCsv(deps, request));
}

async function exportCsv(deps: ExportDeps, request: InsightsRequest): Promise<ExportResult> {
  const { view, query, project, audience } = request;
  const read = view === 'searches' ? searchLines : view === 'questions' ? questionLines : feedbackLines;
  const fetched = await read(deps, request);
  if (!fetched.ok) return fetched;
  const content = csvDocument(fetched.lines);
  const rows = fetched.lines.length - 1;
  try {
    await deps.slack.filesUploadV2({
      channel_id: audience.channel,
      filename: `insights_${view}_${project}_${query.from}_${query.to}.csv`,
      title: `Docs insights: ${view} ${formatRange(query.from, query.to)}`,
      content,
      initial_comment: `<@${audience.userId}> exported ${rows} ${view} row${rows === 1 ? '' : 's'} of ${project}, ${formatRange(query.from, query.to)}.`,
    });
  } catch (error) {
    const code = slackErrorCode(error);
    deps.log.warn('insights.export_upload_failed', { channel: audience.channel, code });
    return { ok: false, reason: 'upload_failed', code, ...retryAfterField(error) };
  }
  deps.log.info('insights.export', { channel: audience.channel, view, rows });
  return { ok: true, rows };
}
