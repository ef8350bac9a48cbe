import { describe, expect, it } from 'vitest';
import { shareReport } from '../../../../src/visitors/report/share.js';
import { fakeVisitors, PROJECT, reportRequest } from '../fake-deps.js';

/** Share clicked under a report of 1–8 Nov in #docs. */
const REQUEST = reportRequest({ project: PROJECT });

const setup = () => fakeVisitors();

describe('shareReport', () => {
  it('posts the report in the conversation, saying who shared it, with no buttons and no unfurls', async () => {
    const { deps, slack, logs, responses } = setup();
    expect(await shareReport(deps, REQUEST)).toEqual({ ok: true });
    const [post] = slack.calls;
    expect(post?.method).toBe('chat.postMessage');
    expect(post?.args).toMatchObject({ channel: 'C123DOCS', unfurl_links: false, unfurl_media: false });
    const blocks = JSON.stringify(post?.args.blocks);
    expect(blocks).toContain('Shared by <@U123ALICE>');
    expect(blocks).not.toContain('"type":"actions"');
    expect(logs.text()).toContain('"event":"visitors.shared"');
    expect(responses).toEqual([]);
  });

  it('posts the rows as a data table, and as the text table where Slack refuses that (invalid_blocks)', async () => {
    const { deps, slack, logs } = setup();
    slack.failNext('chat.postMessage', 'invalid_blocks');
    expect(await shareReport(deps, REQUEST)).toEqual({ ok: true });
    const [table, text] = slack.calls.map((c) => JSON.stringify(c.args.blocks));
    expect(table).toContain('"type":"data_table"');
    expect(text).not.toContain('"type":"data_table"');
    expect(text).toContain('```');
    expect(text).toContain('Shared by <@U123ALICE>');
    expect(logs.text()).toContain('"event":"visitors.report_as_text"');
    expect(logs.text()).not.toContain('visitors.share_failed');
  });

  it('returns Slack’s refusal with its code', async () => {
    const { deps, slack, logs } = setup();
    slack.failNext('chat.postMessage', 'not_in_channel');
    expect(await shareReport(deps, REQUEST)).toEqual({ ok: false, reason: 'post_failed', code: 'not_in_channel' });
    expect(logs.text()).toContain('"event":"visitors.share_failed"');
  });

  it('posts nothing when the service gives no page', async () => {
    const { deps, slack, service } = setup();
    service.failures.push({ code: 'unauthorized', status: 401, message: 'Invalid API key' });
    expect(await shareReport(deps, REQUEST)).toMatchObject({ ok: false, reason: 'fetch_failed' });
    expect(slack.calls).toEqual([]);
  });
});
