import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventEnvelope,
  otherWorkspace,
  type SlackStandin,
  startSlackStandin,
} from '../../tools/slack-standin/index.js';

/** The eight-byte signature every PNG starts with, and a few bytes of "image". */
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);
const PDF = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n', 'latin1');

describe('Slack stand-in: files people share', () => {
  let slack: SlackStandin;
  const bot = () =>
    new webApi.WebClient(slack.workspace.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  const download = (url: string, token?: string, redirect: 'follow' | 'manual' = 'follow') =>
    fetch(url, { redirect, ...(token && { headers: { authorization: `Bearer ${token}` } }) });

  beforeAll(async () => {
    slack = await startSlackStandin();
    slack.addWorkspace(otherWorkspace('T2', 'globex'));
  });
  afterAll(() => slack.close());

  it('files.getUploadURLExternal records `alt_txt` as Slack documents it, ignores `alt_text`, refuses over 1,000 or no length', async () => {
    const client = bot();
    const args = (alt: Record<string, string>) =>
      ({ filename: 'chart.png', length: PNG.length, ...alt }) as webApi.FilesGetUploadURLExternalArguments;
    const read = await client.files.getUploadURLExternal(args({ alt_txt: 'Visitors per day' }));
    expect(slack.files.find((f) => f.id === read.file_id)?.altText).toBe('Visitors per day');
    const ignored = await client.files.getUploadURLExternal(args({ alt_text: 'Visitors per day' }));
    expect(slack.files.find((f) => f.id === ignored.file_id)).not.toHaveProperty('altText');
    await expect(client.files.getUploadURLExternal(args({ alt_txt: 'x'.repeat(1_001) }))).rejects.toMatchObject({
      data: { error: 'alt_txt_too_large' },
    });
    // Its required `length`: an empty file is refused.
    const empty = { filename: 'empty.csv', length: 0 } as webApi.FilesGetUploadURLExternalArguments;
    await expect(client.files.getUploadURLExternal(empty)).rejects.toMatchObject({
      data: { error: 'missing_argument' },
    });
    await expect(client.apiCall('files.getUploadURLExternal', { filename: 'chart.png' })).rejects.toMatchObject({
      data: { error: 'invalid_arguments' },
    });
  });

  it('a snippet shared with a comment: a file_share message with the file object, the comment on the wire', () => {
    const content = '# Retries\nBack off & give up after <30s>\n';
    const shared = slack.people.sharesFile(
      'U123ALICE',
      'C123DOCS',
      { name: 'retries.md', content },
      { text: 'see <this> & @bob' },
    );
    const [message] = shared.events as [EventEnvelope];
    expect(message.event).toMatchObject({
      type: 'message',
      subtype: 'file_share',
      channel_type: 'channel',
      user: 'U123ALICE',
      text: 'see &lt;this&gt; &amp; <@U456BOB>',
      files: [
        {
          id: shared.file.id,
          name: 'retries.md',
          title: 'retries.md',
          mimetype: 'text/plain',
          filetype: 'markdown',
          pretty_type: 'Markdown (raw)',
          size: Buffer.byteLength(content),
          mode: 'snippet',
          user: 'U123ALICE',
          url_private: `${slack.url}/files-pri/T1-${shared.file.id}/retries.md`,
          url_private_download: `${slack.url}/files-pri/T1-${shared.file.id}/download/retries.md`,
          permalink: `https://acme.slack.com/files/U123ALICE/${shared.file.id}/retries.md`,
        },
      ],
    });
    expect(slack.messages.at(-1)).toMatchObject({ subtype: 'file_share', files: [{ id: shared.file.id }] });
  });

  it.each([
    ['notes.txt', 'plain words', 'text/plain', 'text', 'Plain Text', 'snippet'],
    ['handler.ts', 'export const x = 1;', 'text/plain', 'typescript', 'TypeScript', 'snippet'],
    ['config.json', '{"retries":3}', 'application/json', 'json', 'JSON', 'snippet'],
    ['deploy.yaml', 'retries: 3', 'text/plain', 'yaml', 'YAML', 'snippet'],
    ['chart.png', PNG, 'image/png', 'png', 'PNG', 'hosted'],
    ['spec.pdf', PDF, 'application/pdf', 'pdf', 'PDF', 'hosted'],
  ])('%s is typed as Slack types it, and shared without text', (name, content, mimetype, filetype, pretty, mode) => {
    const shared = slack.people.sharesFile('U456BOB', 'C234GENERAL', { name, content });
    expect(shared.file).toMatchObject({
      mimetype,
      filetype,
      pretty_type: pretty,
      mode,
      size: Buffer.from(content).length,
    });
    expect((shared.events[0] as EventEnvelope).event).toMatchObject({ subtype: 'file_share', text: '' });
  });

  it('a file shared with a mention of the bot comes as both events, each with the files', () => {
    const shared = slack.people.sharesFile(
      'U123ALICE',
      'C123DOCS',
      { name: 'a.txt', content: 'a' },
      { text: '@mintlify read this' },
    );
    expect(shared.events.map((e) => [e.event.type, (e.event.files as unknown[]).length])).toEqual([
      ['app_mention', 1],
      ['message', 1],
    ]);
  });

  it('a file shared in the bot’s DM is a message.im', () => {
    const [message] = slack.people.sharesFile('U123ALICE', 'DU123ALICE', { name: 'a.txt', content: 'a' }).events as [
      EventEnvelope,
    ];
    expect(message.event).toMatchObject({ channel_type: 'im', subtype: 'file_share' });
  });

  it('files.info answers the same file object, for the workspace that holds it only', async () => {
    const shared = slack.people.sharesFile('U123ALICE', 'C123DOCS', { name: 'spec.pdf', content: PDF });
    const { file } = await bot().files.info({ file: shared.file.id });
    expect(file).toEqual(shared.file);
    const globex = new webApi.WebClient('xoxb-globex-token', {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    await expect(globex.files.info({ file: shared.file.id })).rejects.toMatchObject({
      data: { error: 'file_not_found' },
    });
    await expect(bot().files.info({ file: 'F0NOPE' })).rejects.toMatchObject({ data: { error: 'file_not_found' } });
  });

  it('downloads with the workspace’s bot token: the bytes, and an attachment from url_private_download', async () => {
    const { file } = slack.people.sharesFile('U456BOB', 'C234GENERAL', { name: 'chart.png', content: PNG });
    const res = await download(file.url_private, slack.workspace.botToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
    const attached = await download(file.url_private_download, slack.workspace.botToken);
    expect(attached.headers.get('content-disposition')).toBe('attachment; filename="chart.png"');
    expect(await attached.text()).toBe(PNG.toString());
  });

  it.each([
    ['no token', undefined],
    ['another workspace’s token', 'xoxb-globex-token'],
    ['a token Slack never issued', 'xoxb-made-up'],
  ])('with %s, gets no error status but the sign-in page (HTML, 200 after a redirect)', async (_, token) => {
    const { file } = slack.people.sharesFile('U456BOB', 'C234GENERAL', { name: 'chart.png', content: PNG });
    const bounced = await download(file.url_private, token, 'manual');
    expect(bounced.status).toBe(302);
    expect(bounced.headers.get('location')).toMatch(/\/\?redir=%2Ffiles-pri%2F/);
    const res = await download(file.url_private, token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toMatch(/^<!DOCTYPE html>/);
  });

  it('a revoked token gets the sign-in page too, and files the app uploads download like any other', async () => {
    const root = await bot().chat.postMessage({ channel: 'C123DOCS', text: 'report' });
    await bot().files.uploadV2({
      channel_id: 'C123DOCS',
      thread_ts: root.ts as string,
      filename: 'visitors.csv',
      content: 'day,visitors\n',
    });
    const uploaded = slack.messages.at(-1)?.files?.[0] as unknown as { url_private: string; mimetype: string };
    expect(uploaded).toMatchObject({ mimetype: 'text/csv', mode: 'hosted' });
    expect(await (await download(uploaded.url_private, slack.workspace.botToken)).text()).toBe('day,visitors\n');
    slack.acceptToken('xoxb-soon-gone');
    slack.refuseToken('xoxb-soon-gone');
    expect(await (await download(uploaded.url_private, 'xoxb-soon-gone')).text()).toMatch(/Sign in/);
  });
});
