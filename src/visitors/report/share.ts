import type { Deps } from '../../deps.js';
import { slackErrorCode } from '../../slack/errors.js';
import { buildReport } from '../blocks.js';
import type { FailedFor } from '../failures.js';
import { projectQuery, type ReportRequest } from '../requests.js';
import type { PageDeps } from './page.js';
import { showReport } from './show.js';

export type ShareResult = { ok: true } | FailedFor<'fetch_failed' | 'post_failed'>;

/** Posts the report in the conversation it was asked in, saying who shared it. */
export async function shareReport(deps: PageDeps & Pick<Deps, 'slack'>, request: ReportRequest): Promise<ShareResult> {
  const { audience } = request;
  const query = projectQuery(request);
  const report = await showReport(deps, query);
  if (!report.ok) return report;
  const message = buildReport(report.page, {
    sharedBy: audience.userId,
    previous: report.previous,
    previousUntil: report.previousUntil,
  });
  const { channel } = audience;
  try {
    await deps.slack.chat.postMessage({ channel, ...message, unfurl_links: false, unfurl_media: false });
  } catch (error) {
    const code = slackErrorCode(error);
    deps.log.warn('visitors.share_failed', { channel, code });
    return { ok: false, reason: 'post_failed', code };
  }
  deps.log.info('visitors.shared', { user: audience.userId, channel, from: query.from, to: query.to });
  return { ok: true };
}
