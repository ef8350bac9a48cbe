import type { Deps } from '../deps.js';
import { type Message, notice } from '../slack/message.js';
import { buildDigest, buildView, type ViewData } from './blocks.js';
import { type ExportDeps, exportInsightsCsv } from './export.js';
import {
  type LoadDeps,
  type Loaded,
  loadFeedback,
  loadQuestions,
  loadSearches,
  loadStrugglingSearches,
} from './load.js';
import { commandOf, failureText, insightsCopy } from './messages.js';
import type { InsightsRequest, View } from './requests.js';

// /insights' work after a door's ack (`insights-work.ts`): read the service, answer privately. An unexpected throw is
// answered by the one error policy (src/app/dispatch.ts) with the task's `failed` words.

type TaskDeps = LoadDeps & Pick<Deps, 'replies'>;

/** A view (or the digest), privately. */
export async function runInsights(deps: TaskDeps, request: InsightsRequest): Promise<void> {
  await deps.replies.privately(request.audience, await showInsights(deps, request));
}

/** Next →: the next page replaces the one the button was on. */
export async function runInsightsPage(deps: TaskDeps, request: InsightsRequest): Promise<void> {
  const message = await showInsights(deps, request);
  const { responseUrl } = request.audience;
  if (!responseUrl || !(await deps.replies.replace(responseUrl, message)))
    await deps.replies.privately(request.audience, message);
}

/** Download CSV: every row of the range uploaded in the conversation; a failure is said privately. */
export async function runInsightsExport(deps: TaskDeps & ExportDeps, request: InsightsRequest): Promise<void> {
  const result = await exportInsightsCsv(deps, request);
  if (result.ok) return;
  const message =
    result.reason === 'busy'
      ? notice(insightsCopy.busy(request.view, request.query))
      : result.reason === 'upload_failed'
        ? notice(insightsCopy.uploadFailed(result, request.audience.channel))
        : failureText(result.failure, commandOf(request));
  await deps.replies.privately(request.audience, message);
}

/** Rows of each view in the digest. */
const DIGEST_ROWS = 3;

type OneView = Exclude<View, 'digest'>;

async function load(deps: LoadDeps, request: InsightsRequest, view: OneView): Promise<Loaded<ViewData>> {
  const { project, query, cursor } = request;
  const wrap = <T>(loaded: Loaded<T>, as: (data: T) => ViewData): Loaded<ViewData> =>
    loaded.ok ? { ok: true, value: as(loaded.value) } : loaded;
  switch (view) {
    case 'feedback':
      return wrap(await loadFeedback(deps, project, query), (data) => ({ view, data }));
    case 'searches':
      return wrap(await loadSearches(deps, project, query, cursor), (data) => ({ view, data }));
    case 'questions':
      return wrap(await loadQuestions(deps, project, query, cursor), (data) => ({ view, data }));
  }
}

/** A view's part of the digest: its first rows (searches: `loadStrugglingSearches`). */
async function digestPart(deps: LoadDeps, request: InsightsRequest, view: OneView): Promise<Loaded<ViewData>> {
  if (view !== 'searches') return load(deps, request, view);
  const loaded = await loadStrugglingSearches(deps, request.project, request.query, DIGEST_ROWS);
  return loaded.ok ? { ok: true, value: { view, data: loaded.value } } : loaded;
}

/** The message for a request: its view's page, or the digest of all three; a failure is worded with the command. */
export async function showInsights(deps: LoadDeps, request: InsightsRequest): Promise<Message> {
  const { view, project } = request;
  if (view !== 'digest') {
    const loaded = await load(deps, request, view);
    return loaded.ok ? buildView(request, project, loaded.value) : failureText(loaded.failure, commandOf(request));
  }
  const small = { ...request, query: { ...request.query, limit: DIGEST_ROWS, offset: 0 } };
  const views: OneView[] = ['feedback', 'searches', 'questions'];
  const parts = await Promise.all(
    views.map(async (one) => ({ view: one, loaded: await digestPart(deps, small, one) })),
  );
  const [first] = parts;
  if (first && !first.loaded.ok && parts.every(({ loaded }) => !loaded.ok))
    return failureText(first.loaded.failure, commandOf(request));
  return buildDigest(
    request.query,
    project,
    parts.map(({ view: one, loaded }) => (loaded.ok ? loaded.value : { view: one, failed: true as const })),
  );
}
