import type { LinkUnfurls } from '@slack/web-api';
import type { Deps } from '../deps.js';
import { classifySlackError } from '../slack/errors.js';
import { budgetKey } from '../slack/tiers.js';
import { keys } from '../store/keys.js';
import { unfurlAttachment } from './blocks.js';
import { type DocsPage, docsPageOf } from './match.js';
import { pagesStats } from './page-stats.js';

/**
 * Unfurls a workspace may make in any window (Slack's rate window, a minute, counted sliding as Slack counts):
 * `chat.unfurl` is Tier 3 (about 50 a minute per workspace), and the rest of the tier is left to a burst of pastes'
 * retries.
 */
export const UNFURLS_PER_WINDOW = 40;
/** Slack unfurls at most this many links of one message. */
const LINKS_MAX = 5;

/** Where the links were shared: a posted message (`channel` + `ts`) and the id Slack gave the unfurl. */
export interface SharedLinks {
  channel: string;
  messageTs: string;
  unfurlId?: string | undefined;
  source?: string | undefined;
  urls: readonly string[];
  /** The pages without their readers (another organisation would see them). */
  plain?: boolean;
  /** Where the bot can post no job (a DM between people): no "Update this page". */
  noJobs?: boolean;
}

export type UnfurlDeps = Pick<
  Deps,
  'slack' | 'store' | 'log' | 'now' | 'mintlify' | 'projects' | 'config' | 'workspace'
>;

/** The links that are pages of a connected project's docs, each once, at most `LINKS_MAX`. */
export function docsPages(urls: readonly string[], docsUrls: Readonly<Record<string, string>>): DocsPage[] {
  const pages = [...new Set(urls)].map((url) => docsPageOf(url, docsUrls));
  return pages.filter((page): page is DocsPage => page !== undefined).slice(0, LINKS_MAX);
}

/**
 * Unfurls the docs links among `shared` with their pages' readers: one `chat.unfurl` for all of them, within the
 * workspace's budget. Links to anything else are left to Slack. Never throws: Slack's refusals are logged.
 */
export async function unfurlLinks(deps: UnfurlDeps, shared: SharedLinks): Promise<void> {
  const pages = docsPages(shared.urls, deps.projects.docsUrls);
  if (pages.length === 0) return;
  const budget = deps.store.budget({
    name: keys.unfurlBudget(),
    points: UNFURLS_PER_WINDOW,
    durationMs: deps.config.slackRateWindowMs,
    sliding: true,
  });
  const workspace = budgetKey(deps.workspace);
  const use = await budget.take(workspace).catch((error: unknown) => {
    deps.log.warn('store.unavailable', { op: 'unfurls.budget', error });
    return undefined;
  });
  if (!use?.ok) {
    // A refusal with no use left in the window is the budget's; one with uses left is Slack's Retry-After (held).
    const reason = !use ? 'store' : use.left > 0 ? 'slack_wait' : 'budget';
    deps.log.info('unfurls.skipped', { reason, links: pages.length });
    return;
  }
  const stats = shared.plain ? [] : await pagesStats(deps, pages);
  const unfurls: LinkUnfurls = Object.fromEntries(
    pages.map((page, i) => [page.url, unfurlAttachment(page, stats[i] ?? { known: false }, !shared.noJobs)]),
  );
  // The unfurl's own id works in the composer and in a channel alike; channel and ts only for a posted message.
  const { unfurlId, source } = shared;
  const byId = unfurlId && (source === 'composer' || source === 'conversations_history');
  try {
    await deps.slack.chat.unfurl(
      byId ? { unfurl_id: unfurlId, source, unfurls } : { channel: shared.channel, ts: shared.messageTs, unfurls },
    );
    deps.log.info('unfurls.sent', { links: pages.length, source: shared.source ?? 'conversations_history' });
  } catch (error) {
    const failure = classifySlackError(error);
    deps.log.warn('slack.unfurl_failed', { slack_error: failure.code, links: pages.length });
    // Slack said to wait: every instance leaves the workspace's links to Slack until then, instead of asking again.
    if (failure.kind === 'rate_limited') {
      await budget.hold?.(workspace, failure.retryAfterMs).catch((e: unknown) => {
        deps.log.warn('store.unavailable', { op: 'unfurls.hold', error: e });
      });
    }
  }
}
