import type { Message } from '../slack/message.js';
import { buildDigest, buildView, type ViewData } from './blocks.js';
import { type LoadDeps, type Loaded, loadFeedback, loadQuestions, loadSearches } from './load.js';
import { commandOf, failureText } from './messages.js';
import type { InsightsRequest, View } from './requests.js';

/** Rows of each view in the digest. */
export const DIGEST_ROWS = 3;

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

/** The message for a request: its view's page, or the digest of all three; a failure is worded with the command. */
export async function showInsights(deps: LoadDeps, request: InsightsRequest): Promise<Message> {
  const { view, project } = request;
  if (view !== 'digest') {
    const loaded = await load(deps, request, view);
    return loaded.ok ? buildView(request, project, loaded.value) : failureText(loaded.failure, commandOf(request));
  }
  const small = { ...request, query: { ...request.query, limit: DIGEST_ROWS, offset: 0 } };
  const views: OneView[] = ['feedback', 'searches', 'questions'];
  const parts = await Promise.all(views.map(async (one) => ({ view: one, loaded: await load(deps, small, one) })));
  const [first] = parts;
  if (first && !first.loaded.ok && parts.every(({ loaded }) => !loaded.ok))
    return failureText(first.loaded.failure, commandOf(request));
  return buildDigest(
    request.query,
    project,
    parts.map(({ view: one, loaded }) => (loaded.ok ? loaded.value : { view: one, failed: true as const })),
  );
}
