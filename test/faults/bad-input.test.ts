import { beforeEach, describe, expect, it } from 'vitest';
import type { JobBinding } from '../../src/store/jobs.js';
import { postForm, postInteraction, postJson, slackSignature } from '../fakes/signed-request.js';
import { blockAction, CHANNEL_ID, slashCommand, threadReply, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, overlongTexts, oversizedSections, sleep } from './support.js';

/**
 * Hostile or broken input against the real app over HTTP (one app for the whole sweep, so anything that
 * wedges it shows up in the next case). Every case must end in a clear 4xx or a private message, never a
 * crash, and nothing reaching the simulator that was built from unvalidated input.
 */
describe('bad input sweep', () => {
  const h = useHarness({ simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL, boot: true, per: 'file' });

  beforeEach(async () => {
    // The app is still alive and answering after the previous case.
    const health = await fetch(`${h.app.url}/healthz`);
    expect(health.status).toBe(200);
    h.slack.reset();
    h.sim.requests.length = 0;
  });

  /** Requests that would start or change something, or fetch analytics (polls of earlier cases' jobs excluded). */
  const work = () => h.sim.requests.filter((r) => r.method !== 'GET' || r.path.endsWith('/visitors'));

  /** Every request the simulator saw must be one of the API's own paths with a well-formed id. */
  function expectOnlyValidatedPaths(): void {
    const project = TEST_PROJECT_ID;
    const allowed = [
      new RegExp(`^/v2/agent/${project}/job$`),
      new RegExp(`^/v2/agent/${project}/job/[0-9a-f-]{36}(/message)?$`),
      new RegExp(`^/v1/analytics/${project}/visitors$`),
    ];
    for (const request of h.sim.requests) {
      expect(
        allowed.some((re) => re.test(request.path)),
        `unexpected request ${request.method} ${request.path}`,
      ).toBe(true);
    }
  }

  /** Raw signed POST: the signature covers the body as the receiver decodes it (UTF-8, invalid bytes replaced). */
  async function postRaw(body: Buffer | string, contentType: string, headers: Record<string, string> = {}) {
    const timestamp = Math.floor(Date.now() / 1000);
    const text = typeof body === 'string' ? body : body.toString('utf8');
    return fetch(`${h.app.url}/slack/events`, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': slackSignature(text, timestamp),
        ...headers,
      },
      body,
    });
  }

  describe('authenticity: refused with 401 and nothing else happens', () => {
    // One body, signed as sent: each case is refused for its own reason, not for a signature of another body.
    const commandOf = (text: string) => new URLSearchParams(slashCommand({ text })).toString();
    const form = commandOf('Forged command');
    const now = () => Math.floor(Date.now() / 1000);
    const signedAt = (timestamp: number, secret?: string, body = form) => ({
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(body, timestamp, secret),
    });
    const cases: [string, () => Record<string, string>, string?][] = [
      ['a wrong signature', () => ({ 'x-slack-request-timestamp': String(now()), 'x-slack-signature': 'v0=deadbeef' })],
      ['a signature made with another secret', () => signedAt(now(), 'x')],
      ['a timestamp older than five minutes', () => signedAt(now() - 301)],
      ['a timestamp more than five minutes ahead', () => signedAt(now() + 301)],
      ['a body changed after signing', () => signedAt(now()), form.replace('Forged', 'Tampered')],
      ['no signature headers', () => ({})],
      ['a non-numeric timestamp', () => ({ 'x-slack-request-timestamp': 'soon', 'x-slack-signature': 'v0=00' })],
    ];
    it.each(cases)('%s', async (_, headers, body = form) => {
      const res = await fetch(`${h.app.url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers() },
        body,
      });
      expect(res.status).toBe(401);
      await sleep(200);
      expect(h.slack.calls).toHaveLength(0);
      expect(work()).toHaveLength(0);
    });

    it('a command signed the same way, now, is accepted (`/agent help`: answered in the ack, nothing left running)', async () => {
      const help = commandOf('help');
      const res = await fetch(`${h.app.url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...signedAt(now(), undefined, help) },
        body: help,
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { text: string }).text).toContain('/agent &lt;instruction&gt;');
    });
  });

  describe('replay: a signed request captured and sent again', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const started = () => h.sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job'));
    const signed = (fields: Record<string, string>) => {
      const body = new URLSearchParams(fields).toString();
      const at = now();
      const headers = { 'x-slack-request-timestamp': String(at), 'x-slack-signature': slackSignature(body, at) };
      return () =>
        fetch(`${h.app.url}/slack/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body,
        });
    };

    it('an /agent sent again with the same body and signature, within five minutes, starts no second job', async () => {
      const send = signed(slashCommand({ text: 'Document the replay policy' }));
      expect((await send()).status).toBe(200);
      await eventually(() => started().length === 1, 5_000, 'the job started');
      expect((await send()).status).toBe(200); // acknowledged, as Slack's request would be
      await sleep(500);
      expect(started()).toHaveLength(1);
      expect(h.app.logs()).toMatch(/"event":"slack\.request_replayed".*"kind":"\/agent"/);
      expect(h.app.logs()).not.toMatch(/"event":"slack\.listener_error".*"kind":"\/agent"/);
    });

    it('the same /agent typed twice (two requests Slack signed) starts two jobs', async () => {
      for (const send of [0, 1].map(() => signed(slashCommand({ text: 'Document the twice policy' })))) {
        expect((await send()).status).toBe(200);
      }
      await eventually(() => started().length === 2, 5_000, 'both jobs started');
    });
  });

  describe('malformed bodies (correctly signed)', () => {
    const cases: [string, string | Buffer, string][] = [
      ['truncated JSON', '{"type":"event_callback","event":{', 'application/json'],
      ['a form whose payload is not JSON', 'payload=%7Bnot-json', 'application/x-www-form-urlencoded'],
      ['an empty body', '', 'application/json'],
    ];
    it.each(cases)('%s → 400', async (_, body, contentType) => {
      const res = await postRaw(body, contentType);
      expect(res.status).toBe(400);
      await sleep(100);
      expect(work()).toHaveLength(0);
      expect(h.slack.calls).toHaveLength(0);
    });

    const oddButParseable: [string, string, string][] = [
      ['JSON sent as text/plain', '{"type":"event_callback"}', 'text/plain'],
      ['a JSON array', '[1,2,3]', 'application/json'],
      [
        'a command with its text given twice',
        'command=%2Fagent&text=one&text=two&user_id=U1&channel_id=C1&team_id=T1',
        'application/x-www-form-urlencoded',
      ],
      ['a JSON string', '"hello"', 'application/json'],
      ['an event with no event inside', '{"type":"event_callback","team_id":"T1"}', 'application/json'],
      [
        'a form with broken percent escapes',
        'command=%2Fagent&text=%E0%A4%A&user_id=%ZZ',
        'application/x-www-form-urlencoded',
      ],
      [
        'block_actions with no actions',
        'payload=%7B%22type%22%3A%22block_actions%22%7D',
        'application/x-www-form-urlencoded',
      ],
    ];
    it.each(oddButParseable)(
      '%s → a 4xx, or a quiet 2xx, never a 5xx and no work done',
      async (_, body, contentType) => {
        const res = await postRaw(body, contentType);
        expect(res.status).toBeLessThan(500);
        await sleep(100);
        expect(work()).toHaveLength(0);
        expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
      },
    );
  });

  describe('/agent with missing or odd fields', () => {
    it('no text → private usage, nothing started', async () => {
      const { text: _, ...fields } = slashCommand({ response_url: h.slack.responseUrl('notext') });
      const res = await postForm(h.app.url, fields);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { text: string }).text).toContain('/agent &lt;instruction&gt;');
      expect(work()).toHaveLength(0);
    });

    it.each(['user_id', 'channel_id'])('no %s → refused privately, no root message and no job', async (missing) => {
      const fields = slashCommand({ text: `Missing ${missing}`, response_url: h.slack.responseUrl('missing') });
      delete fields[missing];
      const res = await postForm(h.app.url, fields);
      expect(res.status).toBe(200);
      const body = await res.text();
      await sleep(300);
      const replies = [
        ...(body ? [JSON.parse(body)] : []),
        ...h.slack.callsTo('response_url:missing').map((c) => c.args),
      ];
      expect(replies.length).toBeGreaterThan(0);
      expect(replies[0]?.response_type).toBe('ephemeral');
      expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
      expect(work()).toHaveLength(0);
    });

    it('/visitors with its text given twice → a private answer all the same', async () => {
      const responseUrl = encodeURIComponent(h.slack.responseUrl('visitors-twice'));
      const body = `command=%2Fvisitors&text=7d&text=30d&user_id=${USER_ID}&channel_id=${CHANNEL_ID}&team_id=T1&response_url=${responseUrl}`;
      const res = await postRaw(body, 'application/x-www-form-urlencoded');
      expect(res.status).toBe(200);
      const reply = await eventually(
        () => h.slack.callsTo('response_url:visitors-twice')[0],
        3_000,
        'a private answer',
      );
      expect(reply.args.response_type).toBe('ephemeral');
    });

    it('no response_url → the job still starts normally and nothing crashes', async () => {
      const { response_url: _, ...fields } = slashCommand({ text: 'No response url here' });
      const before = h.sim.counts().creates;
      const res = await postForm(h.app.url, fields);
      expect(res.status).toBe(200);
      await eventually(() => h.sim.counts().creates === before + 1, 3_000, 'the job');
      expectOnlyValidatedPaths();
    });
  });

  describe('oversized and undecodable text', () => {
    const huge = (unit: string) => unit.repeat(Math.ceil(40_000 / unit.length)).slice(0, 40_000);
    /** Slack would refuse or cut none of what the app sent. */
    const expectAllFitSlack = () => {
      expect(oversizedSections(h.slack.calls)).toEqual([]);
      expect(overlongTexts(h.slack.calls)).toEqual([]);
    };

    it.each([
      ['plain letters', huge('abcdefghij ')],
      ['characters Slack needs escaped', huge('<&> ')],
      ['nothing but ampersands (5× longer once escaped)', huge('&')],
    ])('a 40,000-character /agent prompt of %s: every message fits Slack and the user is answered', async (_, text) => {
      await h.command(`/agent ${text}`, { responseId: 'huge' });
      await eventually(
        () =>
          h.slack.callsTo('response_url:huge').length > 0 ||
          h.slack.callsTo('chat.update').some((c) => JSON.stringify(c.args.blocks).includes('job `')),
        5_000,
        'an answer',
      );
      expectAllFitSlack();
      expectOnlyValidatedPaths();
    });

    it('a 40,000-character prompt the service refuses: the private error echoing it still fits Slack', async () => {
      h.sim.injectFault({ kind: 'status', status: 502, count: 1, match: { method: 'POST' } });
      const text = huge('&<');
      await h.command(`/agent ${text}`);
      const reply = await h.answer();
      expect(reply.args.text).toContain('>&amp;&lt;&amp;&lt;');
      expectAllFitSlack();
    });

    it('a 40,000-character thread reply the service refuses: the private error echoing it still fits Slack', async () => {
      const { jobId, rootTs } = await h.startJob('Job that will vanish');
      h.sim.deleteJob(jobId);
      // Words first: a reply of punctuation alone is not an instruction (docs/agent.md#who-steers-a-job).
      await h.deliver(threadReply(rootTs, { text: `Fix${huge('&').slice(3)}` }));
      const [eph] = await eventually(
        () => h.slack.callsTo('chat.postEphemeral').length && h.slack.callsTo('chat.postEphemeral'),
        5_000,
        'the private error',
      );
      expect(eph?.args.text).toContain('>Fix&amp;&amp;');
      expectAllFitSlack();
    });

    it('a 40,000-character thread reply: one follow-up or a private refusal, every message fits Slack', async () => {
      const { rootTs } = await h.startJob('Job for a huge reply');
      const text = `${'Please also '.repeat(3_000)}<&>`.padEnd(40_000, '&');
      await h.deliver(threadReply(rootTs, { text }));
      await eventually(
        () => h.slack.callsTo('reactions.add').some((c) => c.args.name === 'white_check_mark' || c.args.name === 'x'),
        5_000,
        'the follow-up handled',
      );
      expectAllFitSlack();
      expect(h.sim.requests.filter((r) => r.path.endsWith('/message')).length).toBeLessThanOrEqual(1);
      expectOnlyValidatedPaths();
    });

    it('invalid UTF-8 in a slash command and in a thread reply is handled like any other text', async () => {
      const { text: _, ...fields } = slashCommand({ response_url: h.slack.responseUrl('utf8') });
      const before = h.sim.counts().creates;
      const form = Buffer.concat([
        Buffer.from(new URLSearchParams(fields).toString()),
        Buffer.from('&text=Fix%20'),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]),
        Buffer.from('%FF%C0%AF%20the%20docs'),
      ]);
      const res = await postRaw(form, 'application/x-www-form-urlencoded');
      expect(res.status).toBe(200);
      await eventually(() => h.sim.counts().creates === before + 1, 5_000, 'the job from the odd bytes');
      const { rootTs } = await eventually(() => {
        const update = h.slack.callsTo('chat.update').find((c) => JSON.stringify(c.args.blocks).includes('job `'));
        return update && { rootTs: update.args.ts as string };
      });

      const event = Buffer.from(JSON.stringify(threadReply(rootTs, { text: 'Then XXXX please' })));
      const at = event.indexOf('XXXX');
      Buffer.from([0xff, 0xc3, 0x28, 0xed]).copy(event, at);
      expect((await postRaw(event, 'application/json')).status).toBe(200);
      await eventually(
        () => h.slack.callsTo('reactions.add').some((c) => c.args.name === 'white_check_mark' || c.args.name === 'x'),
        5_000,
        'the reply handled',
      );
      expectOnlyValidatedPaths();
    });
  });

  describe('forged visitors buttons', () => {
    const day = new Date().toISOString().slice(0, 10);
    const values: [string, string][] = [
      ['not JSON', 'garbage'],
      ['an empty object', '{}'],
      ['a path traversal in a date', JSON.stringify({ from: '../../etc', to: day, limit: 10, offset: 0 })],
      ['extra keys', JSON.stringify({ from: day, to: day, limit: 10, offset: 0, projectId: '../other' })],
      [
        'a prototype-polluting key',
        `{"__proto__":{"polluted":true},"from":"${day}","to":"${day}","limit":10,"offset":0}`,
      ],
      ['a limit over the maximum', JSON.stringify({ from: day, to: day, limit: 100_000, offset: 0 })],
      ['a negative offset', JSON.stringify({ from: day, to: day, limit: 10, offset: -10 })],
      ['a range reaching into the far past', JSON.stringify({ from: '1900-01-01', to: day, limit: 10, offset: 0 })],
      ['an oversized value', JSON.stringify({ from: day, to: day, limit: 10, offset: 0, pad: 'x'.repeat(5_000) })],
    ];
    const actions = ['visitors.prev', 'visitors.next', 'visitors.share', 'visitors.csv'];
    it.each(values)(
      '%s → every button answers privately that it is not valid, and asks nothing of the service',
      async (_, value) => {
        for (const actionId of actions) {
          const id = actionId.replace('.', '-');
          const res = await postInteraction(
            h.app.url,
            blockAction(actionId, value, { response_url: h.slack.responseUrl(id) }),
          );
          expect(res.status).toBe(200);
        }
        for (const actionId of actions) {
          const id = actionId.replace('.', '-');
          const [reply] = await eventually(
            () => h.slack.callsTo(`response_url:${id}`).length && h.slack.callsTo(`response_url:${id}`),
            3_000,
            `reply to ${actionId}`,
          );
          expect(reply?.args.response_type).toBe('ephemeral');
          expect(reply?.args.replace_original).toBe(false);
          expect(reply?.args.text).toContain('not valid any more');
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(work()).toHaveLength(0);
        expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
        expect(h.slack.callsTo('files.getUploadURLExternal')).toHaveLength(0);
      },
    );
  });

  describe('job ids with /, .., % and friends', () => {
    const weirdIds = [
      '../../v1/analytics/proj_test/visitors',
      'a/b',
      '..',
      '%2e%2e%2f',
      'job%00null',
      'x?y=1#z',
      'job id with spaces',
      '-leading-dash',
    ];
    const binding = (jobId: string, threadTs: string): JobBinding => ({
      project: TEST_PROJECT_ID,
      jobId,
      channel: CHANNEL_ID,
      threadTs,
      statusTs: threadTs,
      userId: USER_ID,
      prompt: 'planted',
      createdAtMs: Date.now(),
    });

    it('a thread reply to a thread bound to a weird id is refused privately and never reaches the service', async () => {
      const { jobs } = h.app.app.deps.store;
      for (const [i, jobId] of weirdIds.entries()) {
        const threadTs = `1690000000.00${String(i).padStart(4, '0')}`;
        await jobs.create(binding(jobId, threadTs), { status: 'active' }, Date.now());
        await jobs.untrack({ project: TEST_PROJECT_ID, jobId });
        expect((await postJson(h.app.url, threadReply(threadTs, { text: `Reply ${i}` }))).status).toBe(200);
      }
      await eventually(
        () => h.slack.callsTo('chat.postEphemeral').length === weirdIds.length,
        5_000,
        'a private answer per reply',
      );
      for (const call of h.slack.callsTo('chat.postEphemeral')) expect(call.args.text).toMatch(/>Reply \d/);
      expect(h.slack.callsTo('reactions.add').filter((c) => c.args.name === 'x')).toHaveLength(weirdIds.length);
      expect(work()).toHaveLength(0);
    });

    it('planted active jobs with weird ids are never polled through a crafted path, and the app stays healthy', async () => {
      const { jobs } = h.app.app.deps.store;
      // As a restart finds them: adopted from the active index, each round's poll added.
      for (const [i, jobId] of weirdIds.entries()) {
        const record = await jobs.create(binding(jobId, `1690000001.00${i}`), { status: 'active' }, Date.now());
        await h.app.app.deps.tracker.track(record);
      }
      await sleep(1_500); // several poll rounds
      expectOnlyValidatedPaths();
      // Refused by the client's id check before any request, then treated as gone: tracking stops for good.
      await eventually(
        async () => (await jobs.active(TEST_PROJECT_ID)).every((id) => !weirdIds.includes(id)),
        5_000,
        'weird ids no longer tracked',
      );
      expect((await fetch(`${h.app.url}/healthz`)).status).toBe(200);
      // A normal job still works next to them.
      const { jobId, rootTs } = await h.startJob('Ordinary job among weird ones');
      h.sim.endJob(jobId, { status: 'completed', prLink: null });
      await eventually(
        () => h.slack.callsTo('chat.postMessage').some((c) => c.args.thread_ts === rootTs),
        5_000,
        'the ordinary outcome',
      );
      expectOnlyValidatedPaths();
    });
  });

  it('still answers /healthz and a normal /agent after the whole sweep', async () => {
    expect((await fetch(`${h.app.url}/healthz`)).status).toBe(200);
    await h.startJob('Final sanity job');
    expectOnlyValidatedPaths();
  });

  describe('a signed body that is JSON null, against the real entry point', () => {
    // Bolt 5's HTTPReceiver reads `body.ssl_check` on the parsed body; for `null` that throws inside its request
    // handler (an unhandled rejection) and the request is never answered. It takes the signing secret to send one,
    // and the process must survive it: src/index.ts logs unhandled rejections and keeps serving.
    it('leaves the process serving: /healthz and /agent still work afterwards', async () => {
      const child = await h.spawn();
      try {
        const timestamp = Math.floor(Date.now() / 1000);
        const answer = await fetch(`${child.url}/slack/events`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-slack-request-timestamp': String(timestamp),
            'x-slack-signature': slackSignature('null', timestamp),
          },
          body: 'null',
          signal: AbortSignal.timeout(1_500),
        }).then(
          (res) => res.status,
          () => 'no answer',
        );
        expect(answer === 'no answer' || (typeof answer === 'number' && answer < 500), `answered ${answer}`).toBe(true);
        await eventually(() => child.output().includes('process.unhandled_rejection'), 3_000, 'the logged rejection');
        expect(child.child.exitCode).toBeNull();
        expect((await fetch(`${child.url}/healthz`)).status).toBe(200);
        await h.startJob('After a null body', { app: child });
        expectOnlyValidatedPaths();
      } finally {
        await child.kill('SIGTERM');
      }
    });
  });
});
