import type { Deps } from '../../deps.js';
import { classifySlackError } from '../../slack/errors.js';
import type { Message } from '../../slack/message.js';
import { reportMessages } from '../blocks.js';
import type { FailedFor } from '../failures.js';
import { projectQuery, type ReportRequest } from '../requests.js';
import type { PageDeps } from './page.js';
import { showReport } from './show.js';

export type ShareResult = { ok: true } | FailedFor<'fetch_failed' | 'post_failed' | 'slack_busy'>;

/** Posts the report in the conversation it was asked in, saying who shared it: its rows as a data table, else as text. */
export async function shareReport(deps: PageDeps & Pick<Deps, 'slack'>, request: ReportRequest): Promise<ShareResult> {
  const { audience } = request;
  const query = projectQuery(request);
  const report = await showReport(deps, query);
  if (!report.ok) return report;
  const { table, text } = reportMessages(report.page, {
    sharedBy: audience.userId,
    previous: report.previous,
    previousUntil: report.previousUntil,
  });
  const { channel } = audience;
  const post = (message: Message) =>
    deps.slack.chat
      .postMessage({ channel, ...message, unfurl_links: false, unfurl_media: false })
      .then(() => undefined, classifySlackError);
  let failure = await post(table ?? text);
  // A workspace or client that does not draw the data table: the rows as text.
  if (table && failure?.code === 'invalid_blocks') {
    deps.log.warn('visitors.report_as_text', { reason: 'refused', channel });
    failure = await post(text);
  }
  if (failure?.kind === 'rate_limited') return { ok: false, reason: 'slack_busy', retryAfterMs: failure.retryAfterMs };
  if (failure) {
    deps.log.warn('visitors.share_failed', { channel, code: failure.code });
    return { ok: false, reason: 'post_failed', code: failure.code };
  }
  deps.log.info('visitors.shared', { user: audience.userId, channel, from: query.from, to: query.to });
  return { ok: true };
}
