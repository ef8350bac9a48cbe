import { describe, expect, it } from 'vitest';
import { createQuota } from '../../src/agent/quota.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { type Harness, useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

const BOB = 'U456BOB';
/** A PNG's first bytes: what Slack serves for a screenshot. */
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const SNIPPET = { name: 'retry.md', content: '# Retries\n\nWe back off `3` times, then give up after 30 s.\n' };
const SCREENSHOT = { name: 'dashboard.png', content: PNG };
const CAP_NOTE = 'text files up to 20 KB each, 40,000 characters in all; past that, by link in the order shared';

function filesSuite(h: Harness) {
  const created = () => String((h.creates()[0]?.body as { prompt?: string } | undefined)?.prompt);
  const followUps = () => h.followUps().map((r) => (r.body as { prompt: string }).prompt);

  it('a snippet and a screenshot shared with a mention reach the agent: the text fenced, the image by link', async () => {
    const shared = h.slack.people.sharesFiles(USER_ID, CHANNEL_ID, [SNIPPET, SCREENSHOT], {
      text: '@Mintlify document these retries',
    });
    await h.deliver(shared.events);
    await h.jobOf(CHANNEL_ID, shared.ts);
    const prompt = created();
    expect(prompt.startsWith('document these retries\n\n--- Files shared with this message')).toBe(true);
    expect(prompt).toContain(`[file: retry.md ${shared.files[0]?.permalink}]\n\`\`\`markdown\n# Retries`);
    expect(prompt).toContain('give up after 30 s.\n```');
    expect(prompt).toContain(
      `[file: dashboard.png, image/png ${shared.files[1]?.permalink}: the agent cannot open this kind of file]`,
    );
    const root = await eventually(() =>
      h.slack.callsTo('chat.update').find((c) => JSON.stringify(c.args.blocks).includes('files: 1 included')),
    );
    expect(JSON.stringify(root.args.blocks)).toContain(`files: 1 included, 1 by link (${CAP_NOTE})`);
  });

  it('a snippet shared in a Slack Connect channel (its event names only its id) is asked of files.info and read', async () => {
    const shared = h.slack.people.sharesFiles(USER_ID, 'C456PARTNERS', [SNIPPET], {
      text: '@Mintlify document these retries',
    });
    expect(JSON.stringify(shared.events)).toContain('"file_access":"check_file_info"');
    await h.deliver(shared.events);
    await h.jobOf('C456PARTNERS', shared.ts);
    expect(created()).toContain(`[file: retry.md ${shared.files[0]?.permalink}]\n\`\`\`markdown\n# Retries`);
    expect(h.slack.callsTo('files.info').map((c) => c.args.file)).toEqual([shared.files[0]?.id]);
  });

  it('a file-only reply in the job’s own thread is a follow-up; in a thread the job joined it needs a mention', async () => {
    const { rootTs } = await h.startJob('Document webhooks');
    await h.deliver(h.slack.people.sharesFile(BOB, CHANNEL_ID, SNIPPET, { threadTs: rootTs }).events);
    await h.deliver(h.slack.people.sharesFile(BOB, CHANNEL_ID, SCREENSHOT, { threadTs: rootTs }).events);
    await eventually(() => followUps().length === 2, 5_000, 'two follow-ups');
    expect(followUps().find((p) => p.includes('retry.md'))).toContain('```markdown\n# Retries');
    expect(followUps().find((p) => p.includes('dashboard.png'))).toContain('dashboard.png, image/png');

    const discussion = h.say(BOB, CHANNEL_ID, 'The retry docs are wrong');
    await h.deliver(h.say(USER_ID, CHANNEL_ID, '@Mintlify fix them', { threadTs: discussion.ts }).events);
    await h.jobOf(CHANNEL_ID, discussion.ts);
    await h.deliver(h.slack.people.sharesFile(BOB, CHANNEL_ID, SCREENSHOT, { threadTs: discussion.ts }).events);
    const mentioned = h.slack.people.sharesFile(BOB, CHANNEL_ID, SNIPPET, {
      threadTs: discussion.ts,
      text: '@Mintlify',
    });
    await h.deliver(mentioned.events);
    await eventually(() => followUps().length === 3, 5_000, 'the mentioned file');
    await settle();
    expect(followUps()).toHaveLength(3);
  });

  it('a file shared with a bare mention outside a job’s thread: asked what to do with it, by name, not usage', async () => {
    const shared = h.slack.people.sharesFile(USER_ID, CHANNEL_ID, SNIPPET, { text: '@Mintlify' });
    await h.deliver(shared.events);
    const note = await eventually(() => h.slack.callsTo('chat.postEphemeral')[0], 5_000, 'the private note');
    expect(String(note.args.text)).toContain('`retry.md`');
    expect(String(note.args.text)).toContain('Mention me in this thread with what the agent should do');
    expect(String(note.args.text)).not.toContain('any of these starts a job');
    expect(h.creates()).toEqual([]);
  });

  it('a file-only follow-up refused at the hourly limit echoes the file’s name, not an empty quote', async () => {
    const { rootTs } = await h.startJob('Document webhooks');
    const quota = createQuota(h.app.app.deps.store);
    for (let i = 0; i < 100; i++) await quota.take(TEST_PROJECT_ID, 'follow_up');
    await h.deliver(h.slack.people.sharesFile(BOB, CHANNEL_ID, SNIPPET, { threadTs: rootTs }).events);
    const note = await eventually(() => h.slack.callsTo('chat.postEphemeral')[0], 5_000, 'the private note');
    expect(String(note.args.text)).toContain('limit of follow-ups');
    expect(String(note.args.text)).toMatch(/copy and retry:\n>.*retry\.md/);
  });
}

describe.each(storeKinds)('files shared with the agent, over signed HTTP ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: 60_000 }, boot: true });
  filesSuite(h);

  it('a text file over 20 KB is sent by link, its text left out', async () => {
    const big = { name: 'huge.json', content: `{"a":"${'x'.repeat(25_000)}"}` };
    const shared = h.slack.people.sharesFiles(USER_ID, CHANNEL_ID, [big], { text: '@Mintlify document the schema' });
    await h.deliver(shared.events);
    await h.jobOf(CHANNEL_ID, shared.ts);
    expect(created()).toContain(`[file: huge.json, application/json ${shared.files[0]?.permalink}: its text`);
    expect(created()).not.toContain('xxxxxxxxxx');
  });

  it('stops reading a file at 20 KB when Slack said it was smaller (a snippet edited since it was shared)', async () => {
    const shared = h.slack.people.sharesFiles(USER_ID, CHANNEL_ID, [SNIPPET], { text: '@Mintlify document these' });
    const edited = h.slack.files.find((f) => f.id === shared.files[0]?.id);
    if (!edited) throw new Error('the shared file is not stored');
    // 2 MB now, served at 64 KB every 10 ms (a slow link): reading it all would take over 300 ms of the 5 s allowed.
    edited.bytes = Buffer.from(`# Retries\n${'x'.repeat(2_000_000)}`);
    h.slack.fileServing = { chunkBytes: 64 * 1024, pauseMs: 10 };
    await h.deliver(shared.events);
    await h.jobOf(CHANNEL_ID, shared.ts);
    expect(created()).toContain(`[file: retry.md, text/plain ${shared.files[0]?.permalink}: its text is not included`);
    expect(created()).not.toContain('xxxxxxxxxx');
    const [download] = h.slack.filesServed;
    expect(download?.of).toBeGreaterThan(2_000_000);
    // Stopped after the first chunks: nowhere near the whole file.
    expect(download?.bytes).toBeLessThan(500_000);
  });

  const created = () => String((h.creates()[0]?.body as { prompt?: string } | undefined)?.prompt);
});

describe('files shared with the agent, over Socket Mode', () => {
  const h = useHarness({ simulator: { jobDurationMs: 60_000 }, slack: { socketMode: true }, boot: true });
  filesSuite(h);
});
