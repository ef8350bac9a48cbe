import { describe, expect, it } from 'vitest';
import type { ServiceFailure } from '../../../src/mintlify/failure.js';
import { commandFor, type ReportQuery } from '../../../src/visitors/date-range.js';
import { type Failed, failedText } from '../../../src/visitors/failures.js';

const QUERY: ReportQuery = { from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 20 };
const COMMAND = commandFor(QUERY);
const CHANNEL = 'C123DOCS';
const fetchFailed = (failure: ServiceFailure) =>
  failedText({ ok: false, reason: 'fetch_failed', failure }, QUERY, COMMAND, CHANNEL);

describe('failedText: what the person is told when the service gave no page', () => {
  it('shows the service error and details in plain words, escaped', () => {
    const text = fetchFailed({ code: 'refused', message: 'Invalid <b>', details: ['dateTo: too far', 'x'] });
    expect(text).toContain('could not answer that request: Invalid &lt;b&gt;.');
    expect(text).toContain('• dateTo: too far');
  });

  it('gives the exact command to re-run when the service is down, busy or lost the project', () => {
    expect(fetchFailed({ code: 'unavailable', reason: 'timed out', ambiguous: true, lost: 'timeout' })).toContain(
      '`/visitors 2026-11-01..2026-11-08`',
    );
    expect(fetchFailed({ code: 'rate_limited', retryAfterMs: 12_300 })).toContain(COMMAND);
  });

  it('a 404 (the documents give analytics none) points at the project, not at trying again', () => {
    const text = fetchFailed({ code: 'not_found', message: 'no such project' });
    expect(text).toContain('does not know this project');
    expect(text).not.toContain('try again');
    expect(fetchFailed({ code: 'rate_limited', retryAfterMs: 12_300 })).toContain('about 13 seconds');
  });

  it('ends the service’s own sentence once, and says a long wait the service named in minutes', () => {
    const refused = fetchFailed({ code: 'refused', message: 'Invalid query parameters. ', details: [] });
    expect(refused).toContain('could not answer that request: Invalid query parameters.');
    expect(refused).not.toContain('..');
    expect(fetchFailed({ code: 'rate_limited', retryAfterMs: 1_800_000 })).toContain('about 30 minutes');
    expect(fetchFailed({ code: 'rate_limited', retryAfterMs: 90_000 })).toContain('about 90 seconds');
  });

  it('a 429 that named no wait (the documents give it none) is not told as a time the service said', () => {
    const text = fetchFailed({ code: 'rate_limited', retryAfterMs: 60_000, guessed: true });
    expect(text).toContain('Please try again in a minute');
    expect(text).toContain(COMMAND);
    expect(text).not.toContain('about');
  });

  it('sends people to their admin when the key is refused', () => {
    expect(fetchFailed({ code: 'unauthorized', status: 401, message: 'Invalid API key' })).toMatch(
      /misconfigured.*admin/,
    );
  });
});

describe('failedText: what the person is told when Slack refused', () => {
  const text = (failed: Failed, channel = CHANNEL) => failedText(failed, QUERY, COMMAND, channel);

  it.each(['not_in_channel', 'channel_not_found'])('a post refused with %s says to invite the bot', (code) => {
    expect(text({ ok: false, reason: 'post_failed', code })).toContain('/invite');
  });

  it('a post in an archived channel says it is archived; in a DM not the bot’s, where to share instead', () => {
    expect(text({ ok: false, reason: 'post_failed', code: 'is_archived' })).toContain('archived');
    expect(text({ ok: false, reason: 'post_failed', code: 'is_archived' })).not.toContain('/invite');
    const dm = text({ ok: false, reason: 'post_failed', code: 'channel_not_found' }, 'D0ALICEBOB');
    expect(dm).toContain('direct message I’m not part of');
    expect(dm).not.toContain('/invite');
  });

  it('files the workspace refuses send people to an admin, whatever the file', () => {
    for (const reason of ['upload_failed', 'post_failed', 'dm_failed'] as const) {
      const said = text({ ok: false, reason, code: 'file_uploads_disabled' });
      expect(said, reason).toContain('Slack admin');
      expect(said, reason).not.toMatch(/try again/i);
    }
  });

  it('a post refused otherwise names the code', () => {
    expect(text({ ok: false, reason: 'post_failed', code: 'msg_too_long' })).toContain('`msg_too_long`');
  });

  it('tells people to invite the bot for a CSV refused with not_in_channel, channel_not_found, invalid_channel', () => {
    expect(text({ ok: false, reason: 'upload_failed', code: 'not_in_channel' })).toContain('/invite');
    expect(text({ ok: false, reason: 'upload_failed', code: 'channel_not_found' })).toContain('/invite');
    expect(text({ ok: false, reason: 'upload_failed', code: 'invalid_channel' })).toContain('/invite');
    expect(text({ ok: false, reason: 'upload_failed', code: 'file_too_big' })).toContain('`file_too_big`');
  });

  it('a chart that could not reach the DM says so with the code', () => {
    expect(text({ ok: false, reason: 'dm_failed', code: 'cannot_dm_bot' })).toMatch(
      /couldn’t send you the chart.*cannot_dm_bot/,
    );
  });

  it('an export already running says the file will come', () => {
    expect(text({ ok: false, reason: 'busy' })).toContain('already running');
  });
});
