import { describe, expect, it } from 'vitest';
import { createQuota } from '../../src/agent/quota.js';
import { BOT_USER_ID, type EventEnvelope } from '../fakes/fake-slack-api.js';
import { postInteraction } from '../fakes/signed-request.js';
import { messageShortcut, type ShortcutMessage, viewSubmission } from '../fixtures/conversation.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import type { StoreKind } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

const LONG_JOB_MS = 60_000;
const BOB = 'U456BOB';
const DM = 'D123ALICE';

/** The suite, on one store (`conversation.test.ts`) or with real worker processes (`conversation.processes.test.ts`). */
export const TITLE = 'talking to the agent where the conversation is ($label)';

export function conversations(store: StoreKind): void {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS } });

  const prompts = () => h.creates().map((r) => (r.body as { prompt: string }).prompt);
  const statusPosts = () =>
    h.slack
      .callsTo('chat.postMessage')
      .filter((c) => JSON.stringify(c.args.blocks ?? '').includes('asked the Mintlify agent'));
  const ephemerals = () => h.slack.callsTo('chat.postEphemeral');

  describe('@mention in a channel', () => {
    it('starts a job whose thread is the mention’s own, without the bot’s mention in the prompt, once', async () => {
      await h.boot();
      const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document the new retry policy & its <Note>');
      expect(mention.events.map((e) => e.event.type)).toEqual(['app_mention', 'message']);
      await h.deliver(mention.events);
      const { jobId } = await h.jobOf(CHANNEL_ID, mention.ts);
      await h.deliver(mention.events, { retry: 1 });
      await settle();
      expect(prompts()).toEqual(['document the new retry policy & its <Note>']);
      expect(statusPosts()).toHaveLength(1);
      expect(statusPosts()[0]?.args).toMatchObject({ channel: CHANNEL_ID, thread_ts: mention.ts });
      expect(h.followUps()).toHaveLength(0);

      h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/12' });
      const outcome = await eventually(() =>
        h.slack.callsTo('chat.postMessage').find((c) => String(c.args.text).includes('pull/12')),
      );
      expect(outcome.args.thread_ts).toBe(mention.ts);
    });

    it('a reply while the thread’s job is still starting is answered privately with the text, not lost or a second job', async () => {
      await h.boot({ mintlifyTimeoutMs: 5_000 });
      h.sim.injectFault({ kind: 'slow', delayMs: 1_500, count: 1, match: { method: 'POST' } });
      const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document the new retry policy');
      await h.deliver(mention.events);
      await eventually(() => statusPosts()[0], 5_000, 'the status message');
      await h.deliver(h.say(BOB, CHANNEL_ID, 'Also the <Tip> on backoff', { threadTs: mention.ts }).events);
      await h.deliver(h.say(BOB, CHANNEL_ID, '@Mintlify and the FAQ', { threadTs: mention.ts }).events);
      const notes = await eventually(() => ephemerals().length === 2 && ephemerals(), 5_000, 'two private notes');
      // Each reply answered with its own text; two workers may answer them in either order.
      const texts = notes.map((note) => String(note.args.text)).sort();
      expect(texts).toEqual([
        expect.stringContaining('>Also the &lt;Tip&gt; on backoff'),
        expect.stringContaining('>and the FAQ'),
      ]);
      for (const text of texts) expect(text).toContain('still starting');
      await h.jobOf(CHANNEL_ID, mention.ts);
      await settle();
      expect(prompts()).toEqual(['document the new retry policy']);
      expect(h.followUps()).toHaveLength(0);
    });

    it('in a thread that is not a job’s, takes the earlier messages as context: names, decoded text, files, oldest first', async () => {
      await h.boot();
      const root = h.say(BOB, CHANNEL_ID, 'Retries changed: we now back off 3 times & give up after <30s>');
      h.say(USER_ID, CHANNEL_ID, '@bob is that in the docs? See https://docs.acme.dev/retries', {
        threadTs: root.ts,
      });
      h.say(BOB, CHANNEL_ID, 'Not yet, here is the design', {
        threadTs: root.ts,
        files: [{ id: 'F1', name: 'retry-design.pdf' }],
      });
      const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document this', { threadTs: root.ts });
      const [appMention, message] = mention.events as [EventEnvelope, EventEnvelope];
      await h.deliver([appMention]);
      const { jobId } = await h.jobOf(CHANNEL_ID, root.ts);
      // The message twin arrives once the thread is already the new job's: it is not a follow-up.
      await h.deliver([message]);
      await settle();

      expect(h.creates()).toHaveLength(1);
      expect(h.followUps()).toHaveLength(0);
      const prompt = prompts()[0] as string;
      expect(prompt.startsWith('document this\n\n--- Context: the 3 earlier messages')).toBe(true);
      const lines = [
        'Bob Lee: Retries changed: we now back off 3 times & give up after <30s>',
        'alice: @Bob Lee is that in the docs? See https://docs.acme.dev/retries',
        'Bob Lee: Not yet, here is the design\n  [file: retry-design.pdf https://acme.slack.com/files/C123DOCS/F1/retry-design.pdf]',
      ];
      for (const line of lines) expect(prompt).toContain(line);
      expect(prompt.indexOf(lines[0] as string)).toBeLessThan(prompt.indexOf(lines[2] as string));
      expect(prompt).not.toContain('<@');
      expect(prompt).not.toContain('&amp;');
      expect(prompt).not.toContain('document this\n--- End');
      expect(prompt.trimEnd().endsWith('--- End of context ---')).toBe(true);

      expect(statusPosts()[0]?.args.thread_ts).toBe(root.ts);
      const status = JSON.stringify(statusPosts()[0]?.args.blocks);
      expect(status).toContain('context: 3 earlier thread messages (capped at 8,000 characters)');
      expect(status).toContain('>document this');

      h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/31' });
      const outcome = await eventually(() =>
        h.slack.callsTo('chat.postMessage').find((c) => String(c.args.text).includes('pull/31')),
      );
      expect(outcome.args.thread_ts).toBe(root.ts);
    });

    it('takes an alert another app posted as attachments or blocks alone (no text) as context, with its words', async () => {
      await h.boot();
      const alerts = { botId: 'B777ALERTS', username: 'Uptime' };
      const root = h.slack.people.appPosts(alerts, CHANNEL_ID, {
        attachments: [
          {
            fallback: '[Triggered] Webhook retries & timeouts',
            color: 'danger',
            pretext: 'Monitor triggered',
            title: 'Webhook retries & timeouts',
            title_link: 'https://uptime.example/monitors/1',
            text: 'p95 latency of <https://api.acme.dev/webhooks|/webhooks> over 30 s',
            fields: [{ title: 'Region', value: 'eu-west-1', short: true }],
          },
        ],
      });
      h.slack.people.appPosts(
        alerts,
        CHANNEL_ID,
        {
          blocks: [
            { type: 'header', text: { type: 'plain_text', text: 'Resolved' } },
            { type: 'section', text: { type: 'mrkdwn', text: 'Back under 2 s after *12 min*' } },
          ],
        },
        { threadTs: root.ts },
      );
      const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document the webhook timeouts', { threadTs: root.ts });
      await h.deliver(mention.events);
      await h.jobOf(CHANNEL_ID, root.ts);
      const prompt = prompts()[0] as string;
      expect(prompt).toContain('the 2 earlier messages of the Slack thread');
      expect(prompt).toContain(
        'Uptime: Monitor triggered\nWebhook retries & timeouts (https://uptime.example/monitors/1)\np95 latency of /webhooks (https://api.acme.dev/webhooks) over 30 s\nRegion: eu-west-1',
      );
      expect(prompt).toContain('Uptime: Resolved\nBack under 2 s after *12 min*');
    });

    it('in a thread whose root was deleted, leaves Slack’s tombstone out of the context', async () => {
      await h.boot();
      const root = h.say(BOB, CHANNEL_ID, 'Is the retry page right?');
      h.say(USER_ID, CHANNEL_ID, 'No, it still says 5 tries', { threadTs: root.ts });
      await h.deliver(h.slack.people.deletes(BOB, CHANNEL_ID, root.ts).events);
      const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify fix it', { threadTs: root.ts });
      await h.deliver(mention.events);
      await h.jobOf(CHANNEL_ID, root.ts);
      const prompt = prompts()[0] as string;
      expect(prompt).toContain('the 1 earlier message of the Slack thread');
      expect(prompt).toContain('alice: No, it still says 5 tries');
      expect(prompt).not.toContain('This message was deleted');
      expect(JSON.stringify(statusPosts()[0]?.args.blocks)).toContain('context: 1 earlier thread message');
    });

    it('keeps the thread it could read when Slack refuses the next page (a non-Marketplace app’s 1 read a minute)', async () => {
      await h.boot();
      const root = h.say(BOB, CHANNEL_ID, 'Retries changed: we now back off 3 times');
      for (let i = 1; i <= 20; i++) h.say(i % 2 ? USER_ID : BOB, CHANNEL_ID, `point ${i}`, { threadTs: root.ts });
      h.slack.rateLimits.enable({ conversations: 'non-marketplace' });
      const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document this', { threadTs: root.ts });
      await h.deliver(mention.events);
      await h.jobOf(CHANNEL_ID, root.ts);
      const prompt = prompts()[0] as string;
      expect(prompt).toContain('Bob Lee: Retries changed: we now back off 3 times');
      expect(prompt).toContain('alice: point 13');
      expect(prompt).toContain('the first 15 earlier messages of the Slack thread');
      expect(prompt).toContain('Slack gave no more');
      expect(JSON.stringify(statusPosts()[0]?.args.blocks)).toContain(
        'context: the first 15 earlier thread messages (Slack gave no more; capped at 8,000 characters)',
      );
    });

    it('leaves out the oldest messages past the cap, and says so in the status line', async () => {
      await h.boot();
      const root = h.say(BOB, CHANNEL_ID, `oldest ${'x'.repeat(3_000)}`);
      h.say(BOB, CHANNEL_ID, `middle ${'y'.repeat(3_000)}`, { threadTs: root.ts });
      h.say(BOB, CHANNEL_ID, `newest ${'z'.repeat(3_000)}`, { threadTs: root.ts });
      const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify summarise into a page', { threadTs: root.ts });
      await h.deliver(mention.events);
      await h.jobOf(CHANNEL_ID, root.ts);
      const prompt = prompts()[0] as string;
      expect(prompt).toContain('middle');
      expect(prompt).toContain('newest');
      expect(prompt).not.toContain('xxx');
      expect(JSON.stringify(statusPosts()[0]?.args.blocks)).toContain(
        'the last 2 of 3 earlier thread messages (capped at 8,000 characters, oldest left out)',
      );
    });

    it('a redelivered mention that started a job of another project in its thread is not that job’s follow-up', async () => {
      await h.boot({ env: { MINTLIFY_CHANNEL_PROJECTS: 'C0OTHER:proj_b' } });
      const root = h.say(BOB, CHANNEL_ID, 'The retry page still says 5 tries');
      const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify --project proj_b fix the retry page', {
        threadTs: root.ts,
      });
      await h.deliver(mention.events);
      await h.jobOf(CHANNEL_ID, root.ts, ['proj_b']);
      await h.deliver(mention.events, { retry: 1 });
      await settle();
      expect(h.creates()).toHaveLength(1);
      expect(h.followUps()).toHaveLength(0);
    });

    it('in a job’s thread is one follow-up, with both events delivered and redelivered, never a new job', async () => {
      await h.boot();
      const start = h.say(USER_ID, CHANNEL_ID, '@Mintlify document webhooks');
      await h.deliver(start.events);
      await h.jobOf(CHANNEL_ID, start.ts);
      const more = h.say(BOB, CHANNEL_ID, '@Mintlify also add an example for @alice', { threadTs: start.ts });
      await h.deliver(more.events);
      await eventually(() => h.slack.callsTo('reactions.add').some((c) => c.args.name === 'white_check_mark'));
      await h.deliver(more.events, { retry: 1 });
      await h.deliver([...more.events].reverse(), { retry: 1 });
      await settle();
      expect(h.creates()).toHaveLength(1);
      expect(h.followUps()).toHaveLength(1);
      expect(h.followUps()[0]?.body).toEqual({ prompt: 'also add an example for @alice' });
      expect(h.slack.callsTo('reactions.add').map((c) => c.args.name)).toEqual(['eyes', 'white_check_mark']);
    });

    it('gives the agent what was typed as typed: a code block keeps its indentation, in a start and a follow-up', async () => {
      await h.boot();
      const yaml = '```\nretry:\n  attempts: 3\n  backoff:\n    max:  30s\n```';
      const start = h.say(USER_ID, CHANNEL_ID, `@Mintlify document this config:\n${yaml}`);
      await h.deliver(start.events);
      await h.jobOf(CHANNEL_ID, start.ts);
      await eventually(() => h.creates().length === 1);
      expect(prompts()).toEqual([`document this config:\n${yaml}`]);
      await h.deliver(h.say(BOB, CHANNEL_ID, `also this:\n${yaml}`, { threadTs: start.ts }).events);
      await eventually(() => h.followUps().length === 1);
      expect(h.followUps()[0]?.body).toEqual({ prompt: `also this:\n${yaml}` });
    });

    it('ignores a plain message in a thread that is not a job’s', async () => {
      await h.boot();
      const root = h.say(BOB, CHANNEL_ID, 'Lunch?');
      await h.deliver(h.say(USER_ID, CHANNEL_ID, 'Yes, at noon', { threadTs: root.ts }).events);
      await h.deliver(root.events);
      await settle();
      expect(h.sim.requests).toHaveLength(0);
      expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
      expect(ephemerals()).toHaveLength(0);
    });

    it('uses the channel’s project', async () => {
      await h.boot({ env: { MINTLIFY_CHANNEL_PROJECTS: `${CHANNEL_ID}:proj_b` } });
      const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify fix the quickstart');
      await h.deliver(mention.events);
      await eventually(() => h.creates().length === 1);
      expect(h.creates()[0]?.path).toBe('/v2/agent/proj_b/job');
      await h.jobOf(CHANNEL_ID, mention.ts, ['proj_b']);
    });

    it('answers a bare mention with usage, privately', async () => {
      await h.boot();
      await h.deliver(h.say(USER_ID, CHANNEL_ID, '@Mintlify').events);
      const [note] = await eventually(() => ephemerals().length && ephemerals());
      expect(note?.args).toMatchObject({ channel: CHANNEL_ID, user: USER_ID });
      expect(note?.args.text).toContain('Ask the Mintlify agent');
      expect(h.sim.requests).toHaveLength(0);
    });

    it('refuses people outside the allow-list privately and starts nothing', async () => {
      await h.boot({ env: { AGENT_ALLOWED_USERS: 'U999BOSS' } });
      await h.deliver(h.say(USER_ID, CHANNEL_ID, '@Mintlify sneaky <Note> change').events);
      const [note] = await eventually(() => ephemerals().length && ephemerals());
      expect(note?.args.text).toContain('not allowed');
      expect(note?.args.text).toContain('>sneaky &lt;Note&gt; change'); // echoed, without the bot's mention
      expect(h.sim.requests).toHaveLength(0);
    });

    it('at the hourly limit says when the next slot opens and echoes the instruction privately', async () => {
      await h.boot();
      const quota = createQuota(h.app.app.deps.store);
      for (let i = 0; i < 100; i++) await quota.take(TEST_PROJECT_ID, 'create');
      const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify one more job');
      await h.deliver(mention.events);
      const [note] = await eventually(() => ephemerals().length && ephemerals());
      expect(note?.args).toMatchObject({ channel: CHANNEL_ID, user: USER_ID });
      expect(note?.args.thread_ts).toBeUndefined(); // where the person wrote, not hidden in a new thread
      expect(note?.args.text).toContain('next slot opens');
      expect(note?.args.text).toContain('>one more job');
      expect(h.sim.requests).toHaveLength(0);
    });
  });

  describe('direct messages', () => {
    it('starts a job from a top-level DM, answers in its thread, and takes replies there as follow-ups', async () => {
      await h.boot();
      const dm = h.say(USER_ID, DM, 'Document the CLI flags');
      expect(dm.events.map((e) => e.event.type)).toEqual(['message']);
      await h.deliver(dm.events);
      const { jobId } = await h.jobOf(DM, dm.ts);
      expect(prompts()).toEqual(['Document the CLI flags']);
      expect(statusPosts()[0]?.args).toMatchObject({ channel: DM, thread_ts: dm.ts });

      const reply = h.say(USER_ID, DM, 'Include --verbose too', { threadTs: dm.ts });
      await h.deliver(reply.events);
      await eventually(() => h.followUps().length === 1);
      await h.deliver(reply.events, { retry: 1 });
      await settle();
      expect(h.followUps()).toHaveLength(1);
      expect(h.followUps()[0]?.body).toEqual({ prompt: 'Include --verbose too' });
      expect(h.creates()).toHaveLength(1);

      h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/3' });
      const outcome = await eventually(() =>
        h.slack.callsTo('chat.postMessage').find((c) => String(c.args.text).includes('pull/3')),
      );
      expect(outcome.args).toMatchObject({ channel: DM, thread_ts: dm.ts });
    });

    it('an instruction that begins with the word “visitors” starts a job, in its thread even `visitors this week` steers it; `visitors 30d` alone is a report', async () => {
      await h.boot();
      const dm = h.say(USER_ID, DM, 'Visitors who sign in should see the beta banner: document it');
      await h.deliver(dm.events);
      await h.jobOf(DM, dm.ts);
      expect(prompts()).toEqual(['Visitors who sign in should see the beta banner: document it']);
      await h.deliver(h.say(USER_ID, DM, 'visitors this week', { threadTs: dm.ts }).events);
      await eventually(() => h.followUps().length === 1, 5_000, 'the follow-up');
      expect(h.followUps()[0]?.body).toEqual({ prompt: 'visitors this week' });

      await h.deliver(h.say(USER_ID, DM, 'visitors 30d').events);
      await eventually(
        () => h.slack.calls.find((c) => JSON.stringify(c.args.blocks ?? '').includes('Unique visitors')),
        5_000,
        'the report',
      );
      expect(h.creates()).toHaveLength(1);
      expect(ephemerals().filter((c) => String(c.args.text).includes('understand'))).toEqual([]);
    });

    it('an instruction “Visitors help …” starts a job; `visitors help` alone is the command’s help', async () => {
      await h.boot();
      const dm = h.say(USER_ID, DM, 'Visitors help page: add a section on SSO sign-in');
      await h.deliver(dm.events);
      await h.jobOf(DM, dm.ts);
      expect(prompts()).toEqual(['Visitors help page: add a section on SSO sign-in']);
      await h.deliver(h.say(USER_ID, DM, 'visitors help').events);
      const usage = () => h.slack.calls.find((c) => JSON.stringify(c.args).includes('/visitors'));
      await eventually(usage, 5_000, 'the usage');
      expect(h.creates()).toHaveLength(1);
    });

    it('a report asked for with a mistake (`visitors 400d`, `/visitors soon`) is answered as the command is, no job', async () => {
      await h.boot();
      await h.deliver(h.say(USER_ID, DM, 'visitors 400d').events);
      await h.deliver(h.say(USER_ID, DM, '/visitors soon').events);
      const said = (words: string) => h.slack.calls.some((c) => JSON.stringify(c.args).includes(words));
      await eventually(() => said('1d to 366d') && said("I don't understand `soon`"), 5_000, 'the two answers');
      await settle(300);
      expect(h.creates()).toEqual([]);
    });

    it('answers `help` with usage and starts nothing', async () => {
      await h.boot();
      await h.deliver(h.say(USER_ID, DM, 'help').events);
      const [note] = await eventually(() => ephemerals().length && ephemerals());
      expect(note?.args.channel).toBe(DM);
      expect(note?.args.text).toContain('direct message');
      expect(h.sim.requests).toHaveLength(0);
    });

    it('takes `--project <id>` like /agent, and refuses an unknown one with the instruction echoed', async () => {
      await h.boot({ env: { MINTLIFY_CHANNEL_PROJECTS: 'C234GENERAL:proj_b' } });
      const dm = h.say(USER_ID, DM, '--project proj_b Document the CLI');
      await h.deliver(dm.events);
      await eventually(() => h.creates().length === 1);
      expect(h.creates()[0]?.path).toBe('/v2/agent/proj_b/job');
      expect(prompts()).toEqual(['Document the CLI']);
      await h.jobOf(DM, dm.ts, ['proj_b']);

      await h.deliver(h.say(USER_ID, DM, '--project nope Fix <this> & that').events);
      const [note] = await eventually(() => ephemerals().length && ephemerals());
      expect(note?.args.text).toContain("I don't serve a project `nope`");
      expect(note?.args.text).toContain('>Fix &lt;this&gt; &amp; that');
      expect(h.creates()).toHaveLength(1);
    });

    it('ignores its own messages in the DM', async () => {
      await h.boot();
      await h.deliver([
        {
          type: 'event_callback',
          event_id: 'EvSELF',
          team_id: 'T1',
          api_app_id: 'A1',
          event: {
            type: 'message',
            channel: DM,
            channel_type: 'im',
            user: BOT_USER_ID,
            bot_id: 'BBOT',
            text: 'hi',
            ts: '1.2',
          },
        },
      ]);
      await settle();
      expect(h.sim.requests).toHaveLength(0);
    });
  });

  describe('message shortcut', () => {
    async function openModal(message: ShortcutMessage) {
      const sentAt = Date.now();
      expect((await postInteraction(h.app.url, messageShortcut(message, h.slack.responseUrl('shortcut')))).status).toBe(
        200,
      );
      const opened = await eventually(() => h.slack.callsTo('views.open')[0], 5_000, 'views.open');
      return { opened, afterMs: opened.at - sentAt, view: opened.args.view as Record<string, unknown> };
    }

    it('when Slack does not open the form (an expired trigger), says so privately where the message is', async () => {
      await h.boot();
      h.slack.fail('views.open', { error: 'expired_trigger_id' });
      const message = h.say(BOB, CHANNEL_ID, 'Document the retry policy');
      await openModal({ ts: message.ts, text: message.text, user: BOB });
      const note = await eventually(() => h.slack.callsTo('response_url:shortcut')[0], 5_000, 'the private note');
      expect(note.args.response_type).toBe('ephemeral');
      expect(String(note.args.text)).toContain('Slack did not open the form (expired_trigger_id)');
      expect(h.sim.requests).toHaveLength(0);
    });

    it('opens a modal within 3 s, prefilled with the decoded message and its link, and starts the job in its thread', async () => {
      await h.boot();
      const message = h.say(BOB, CHANNEL_ID, 'The retry page still says 5 tries & <no backoff>, @alice can you fix?');
      const { opened, afterMs, view } = await openModal({ ts: message.ts, text: message.text, user: BOB });
      expect(afterMs).toBeLessThan(3_000);
      expect(opened.args.trigger_id).toBe(`trigger-${message.ts}`);
      const permalink = `https://acme.slack.com/archives/${CHANNEL_ID}/p${message.ts.replace('.', '')}`;
      expect(JSON.parse(String(view.private_metadata))).toEqual({
        channel: CHANNEL_ID,
        threadTs: message.ts,
        permalink,
        messageTs: message.ts,
      });
      const blocks = JSON.stringify(view.blocks);
      expect(blocks).toContain(`<${permalink}|this message>`);
      expect(blocks).toContain(
        '"initial_value":"The retry page still says 5 tries & <no backoff>, @alice can you fix?"',
      );
      expect(blocks).not.toContain('static_select'); // one project: no picker
      expect(h.sim.requests).toHaveLength(0);

      const empty = await postInteraction(h.app.url, viewSubmission(view, '   '));
      expect(await empty.json()).toEqual({
        response_action: 'errors',
        errors: { instruction: 'Write what the agent should do.' },
      });
      expect(h.sim.requests).toHaveLength(0);

      const submitted = await postInteraction(h.app.url, viewSubmission(view, 'Fix the retry count on the retry page'));
      expect(submitted.status).toBe(200);
      expect(await submitted.text()).toBe('');
      await h.jobOf(CHANNEL_ID, message.ts);
      expect(prompts()).toEqual([
        `Fix the retry count on the retry page\n\nSlack message this request is about: ${permalink}\n\n${[
          '--- Context: the Slack message this request is about. Use it as background; the instruction above is what to do. ---',
          'Bob Lee: The retry page still says 5 tries & <no backoff>, @alice can you fix?',
          '--- End of context ---',
        ].join('\n')}`,
      ]);
      expect(statusPosts()[0]?.args).toMatchObject({ channel: CHANNEL_ID, thread_ts: message.ts });
    });

    it('gives the agent the message itself, not only its link, when the instruction says “this”', async () => {
      await h.boot();
      const message = h.say(BOB, CHANNEL_ID, 'The retry page still says 5 tries & <no backoff>, @alice can you fix?');
      const { view } = await openModal({ ts: message.ts, text: message.text, user: BOB });
      await postInteraction(h.app.url, viewSubmission(view, 'Document this properly'));
      await h.jobOf(CHANNEL_ID, message.ts);
      const prompt = prompts()[0] as string;
      expect(prompt.startsWith('Document this properly\n\nSlack message this request is about: https://')).toBe(true);
      expect(prompt).toContain('--- Context: the Slack message this request is about');
      expect(prompt).toContain('Bob Lee: The retry page still says 5 tries & <no backoff>, @alice can you fix?');
      expect(JSON.stringify(statusPosts()[0]?.args.blocks)).toContain('context: the Slack message it is about');
    });

    it('on an alert another app posted as attachments alone (no text), quotes and prefills the alert’s words', async () => {
      await h.boot();
      const app = { botId: 'B777ALERTS', username: 'Uptime' };
      const attachments = [
        { fallback: 'Webhook latency', title: 'Webhook latency', text: 'p95 over 30 s &amp; rising' },
      ];
      const alert = h.slack.people.appPosts(app, CHANNEL_ID, { attachments });
      const { view } = await openModal({
        ts: alert.ts,
        text: '',
        subtype: 'bot_message',
        bot_id: app.botId,
        username: app.username,
        attachments,
      });
      const blocks = JSON.stringify(view.blocks);
      expect(blocks).toContain('>Webhook latency\\n>p95 over 30 s &amp; rising');
      expect(blocks).toContain('"initial_value":"Webhook latency\\np95 over 30 s & rising"');
    });

    it('still opens the modal in time when the permalink is slow, and starts the job in the thread the message is in', async () => {
      await h.boot();
      const root = h.say(BOB, CHANNEL_ID, 'Docs question');
      const reply = h.say(BOB, CHANNEL_ID, 'The SDK page is outdated', { threadTs: root.ts });
      h.slack.fail('chat.getPermalink', { delayMs: 5_000 });
      const { afterMs, view } = await openModal({ ts: reply.ts, text: reply.text, user: BOB, thread_ts: root.ts });
      expect(afterMs).toBeLessThan(3_000);
      expect(JSON.parse(String(view.private_metadata))).toEqual({
        channel: CHANNEL_ID,
        threadTs: root.ts,
        inDiscussion: true,
        messageTs: reply.ts,
      });
      await postInteraction(h.app.url, viewSubmission(view, 'Update the SDK page'));
      await h.jobOf(CHANNEL_ID, root.ts);
      expect(prompts()).toEqual([expect.stringMatching(/^Update the SDK page\n\n--- Context: the Slack message/)]);
      expect(prompts()[0]).toContain('\nBob Lee: The SDK page is outdated\n');
      expect(prompts()[0]).not.toContain('Docs question');
    });

    it('with several projects, presets the channel’s project and starts the job in the one picked', async () => {
      await h.boot({ env: { MINTLIFY_CHANNEL_PROJECTS: `${CHANNEL_ID}:proj_b` } });
      const message = h.say(BOB, CHANNEL_ID, 'Fix the quickstart');
      const { view } = await openModal({ ts: message.ts, text: message.text, user: BOB });
      const picker = (view.blocks as { block_id?: string; element?: Record<string, unknown> }[]).find(
        (b) => b.block_id === 'project',
      );
      expect(picker?.element).toMatchObject({
        type: 'static_select',
        initial_option: { value: 'proj_b' },
        options: [{ value: TEST_PROJECT_ID }, { value: 'proj_b' }],
      });
      await postInteraction(h.app.url, viewSubmission(view, 'Fix the quickstart', TEST_PROJECT_ID));
      await eventually(() => h.creates().length === 1);
      expect(h.creates()[0]?.path).toBe(`/v2/agent/${TEST_PROJECT_ID}/job`);
    });

    it('offers no form to people outside the allow-list', async () => {
      await h.boot({ env: { AGENT_ALLOWED_USERS: 'U999BOSS' } });
      const message = h.say(BOB, CHANNEL_ID, 'Fix this');
      const { view } = await openModal({ ts: message.ts, text: message.text, user: BOB });
      expect(view.submit).toBeUndefined();
      expect(JSON.stringify(view.blocks)).toContain('not allowed');
    });
  });

  it('/agent still starts a job in a new message, as before', async () => {
    await h.boot();
    await h.command('/agent Document the webhooks endpoint');
    await eventually(() => h.creates().length === 1);
    expect(statusPosts()[0]?.args.thread_ts).toBeUndefined();
  });
}
