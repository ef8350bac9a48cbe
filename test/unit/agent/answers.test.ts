import { describe, expect, it } from 'vitest';
import { followUpRefusalAnswer, startRefusalAnswer } from '../../../src/agent/answers.js';
import type { FollowUpRefusal } from '../../../src/agent/follow-up.js';
import type { StartRefusal } from '../../../src/agent/start-job.js';
import type { ServiceFailure } from '../../../src/mintlify/failure.js';
import { expectToContainAll } from '../../support/expect.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
/** A single-workspace app (projects named in its configuration) at NOW. */
const AT = { now: () => NOW, config: {} };
const PROMPT = 'Fix <it> & more';
const ECHO = 'Your instruction, to copy and retry:\n>Fix &lt;it&gt; &amp; more';

const service = (failure: ServiceFailure) =>
  ({ code: 'service', failed: { ok: false, operation: 'create job', project: 'proj_test', failure } }) as const;
const UNAVAILABLE = {
  code: 'unavailable',
  reason: 'network error (ECONNREFUSED)',
  ambiguous: false,
  lost: 'network',
} as const;

/** Every service failure, worded for each use case: the rows differ only where the person's next step does. */
const SERVICE_FAILURES: [string, ServiceFailure, string, string][] = [
  [
    'rate-limited',
    { code: 'rate_limited', retryAfterMs: 60_000 },
    'reached its limit of new jobs for project `proj_test` (100 per hour). The next slot opens in 1 minute (<!date^1795341660^{time}|10:01 UTC>).',
    'reached its limit of follow-ups for project `proj_test` (100 per hour). The next slot opens in 1 minute (<!date^1795341660^{time}|10:01 UTC>).',
  ],
  [
    'rate-limited without saying for how long (the documents give 429 no Retry-After)',
    { code: 'rate_limited', retryAfterMs: 60_000, guessed: true },
    'reached its limit of new jobs for project `proj_test` (100 per hour). Mintlify did not say when the next slot opens: try again later in the hour.',
    'reached its limit of follow-ups for project `proj_test` (100 per hour). Mintlify did not say when the next slot opens',
  ],
  [
    'refusing the key',
    { code: 'unauthorized', status: 401, message: 'bad key' },
    'the API key for project `proj_test` was refused',
    'the API key for project `proj_test` was refused',
  ],
  [
    'refusing the instruction',
    { code: 'refused', status: 400, message: 'Prompt is <too> long', details: [] },
    'Mintlify refused the instruction: Prompt is &lt;too&gt; long',
    'Mintlify refused the instruction: Prompt is &lt;too&gt; long',
  ],
  [
    'not knowing the project or the job (404)',
    { code: 'not_found', message: 'Not found' },
    'Mintlify does not know project `proj_test`, so nothing was started. Ask the admin who installed the app to check its project id and configuration.',
    'This job no longer exists on Mintlify, so the follow-up was not sent.',
  ],
  [
    'unreachable',
    UNAVAILABLE,
    'I could not reach Mintlify, so nothing was started. Try again in a minute.',
    'I could not reach Mintlify, so nothing was started. Try again in a minute.',
  ],
  [
    'not answering in time',
    { ...UNAVAILABLE, reason: 'timed out', ambiguous: true, lost: 'timeout' },
    'Mintlify did not answer in time, so I cannot tell whether the job started. Check the Mintlify dashboard before you run it again.',
    'Mintlify did not answer in time, so I cannot tell whether the agent received this instruction, and its result will not be posted here. Check the job in the Mintlify dashboard before you send it again.',
  ],
  [
    'answering 502',
    { code: 'unavailable', reason: '502', ambiguous: true, lost: 'error_status', status: 502 },
    'Mintlify answered with an error (HTTP 502), so I cannot tell whether the job started.',
    'Mintlify answered with an error (HTTP 502), so I cannot tell whether the agent received this instruction, and its result will not be posted here.',
  ],
  [
    'dropping the connection mid-request',
    { code: 'unavailable', reason: 'network error (ECONNRESET)', ambiguous: true, lost: 'network' },
    'The connection to Mintlify dropped, so I cannot tell whether the job started.',
    'The connection to Mintlify dropped, so I cannot tell whether the agent received this instruction, and its result will not be posted here.',
  ],
  [
    'answering 200 with a body that is not its contract',
    { code: 'unavailable', reason: 'response is not JSON', ambiguous: true, lost: 'unreadable', status: 200 },
    'Mintlify’s answer could not be read, so I cannot tell whether the job started.',
    'Mintlify’s answer could not be read, so I cannot tell whether the agent received this instruction, and its result will not be posted here.',
  ],
  [
    'answering 201 (created) without a job the bot can follow',
    { code: 'unavailable', reason: 'contract', ambiguous: true, lost: 'unreadable', status: 201 },
    'Mintlify started the job, but its answer did not say which job, so I cannot follow it here. Find it in the Mintlify dashboard: running it again would start a second job.',
    'Mintlify’s answer could not be read, so I cannot tell whether the agent received this instruction, and its result will not be posted here.',
  ],
];

describe('startRefusalAnswer', () => {
  it.each<[string, StartRefusal, string]>([
    [
      'quota',
      { code: 'quota', project: 'proj_test', resetInMs: 90_000 },
      'reached its limit of new jobs for project `proj_test` (100 per hour). The next slot opens in 2 minutes (<!date^1795341690^{time}|10:01 UTC>).',
    ],
    [
      'store_unavailable',
      { code: 'store_unavailable' },
      'My storage is unavailable right now, so I could not take this on.',
    ],
    [
      'not_in_channel (a channel)',
      { code: 'not_in_channel', directMessage: false },
      "I can't post in this channel, so I didn't start the job. Add me with `/invite @Mintlify`",
    ],
    [
      'not_in_channel (a DM between people)',
      { code: 'not_in_channel', directMessage: true },
      "I can't post in this conversation, so I didn't start the job. Run the command in a channel I'm in, or in my Messages tab",
    ],
    ['slack_failed', { code: 'slack_failed' }, 'Slack did not accept my message, so I did not start the job.'],
  ])('words %s and echoes the instruction', (_code, refusal, words) => {
    expectToContainAll(startRefusalAnswer(refusal, PROMPT, AT).text, [words, ECHO]);
  });
});

describe('followUpRefusalAnswer', () => {
  it.each<[string, FollowUpRefusal, string]>([
    [
      'quota',
      { code: 'quota', project: 'proj_test', resetInMs: 30 * 60_000 },
      'reached its limit of follow-ups for project `proj_test` (100 per hour). The next slot opens in 30 minutes (<!date^1795343400^{time}|10:30 UTC>).',
    ],
    [
      'store_unavailable',
      { code: 'store_unavailable' },
      'My storage is unavailable right now, so I could not take this on.',
    ],
  ])('words %s and echoes the instruction', (_code, refusal, words) => {
    expectToContainAll(followUpRefusalAnswer(refusal, PROMPT, AT).text, [words, ECHO]);
  });
});

describe('the service failing', () => {
  it.each(SERVICE_FAILURES)(
    'by %s: worded for a start and for a follow-up, each echoing the instruction',
    (_what, failure, startWords, followUpWords) => {
      expectToContainAll(startRefusalAnswer(service(failure), PROMPT, AT).text, [startWords, ECHO]);
      expectToContainAll(followUpRefusalAnswer(service(failure), PROMPT, AT).text, [followUpWords, ECHO]);
    },
  );
});

describe('no key for the project (the app no longer serves it)', () => {
  it('says it is no longer configured, or no longer connected, as the app sets its projects', () => {
    const failure = { code: 'not_connected' } as const;
    expectToContainAll(followUpRefusalAnswer(service(failure), PROMPT, AT).text, [
      'Project `proj_test` is no longer configured for this app, so nothing was sent. Ask whoever runs this app to add it back.',
      ECHO,
    ]);
    const connected = { ...AT, config: { oauth: {} as never } };
    expectToContainAll(startRefusalAnswer(service(failure), PROMPT, connected).text, [
      'Project `proj_test` is not connected to Mintlify in this workspace any more, so nothing was sent. An admin can connect it in my *Home* tab.',
      ECHO,
    ]);
  });
});

describe('a 404 on a create', () => {
  // Failed before: worded as a follow-up to a vanished job ("so the follow-up was not sent") for a new job.
  it('is never worded as a follow-up, and names the project escaped', () => {
    const failed = { ok: false, operation: 'create job', project: 'proj_<a>&', failure: { code: 'not_found' } };
    const answer = startRefusalAnswer({ code: 'service', failed } as StartRefusal, PROMPT, AT).text;
    expect(answer).not.toMatch(/follow-up|no longer exists/);
    expectToContainAll(answer, ['Mintlify does not know project `proj_&lt;a&gt;&amp;`', ECHO]);
  });
});

describe('a follow-up whose fate is unknown (a timeout, a dropped connection, a 5xx)', () => {
  const unknownFate = SERVICE_FAILURES.filter(([, failure]) => failure.code === 'unavailable' && failure.ambiguous);
  // Failed before: "Wait for the result in this thread", a result that is never posted (the follow-up is not tracked).
  it.each(unknownFate)(
    'by %s, its round untracked: never promises a result in the thread, and points to the dashboard',
    (_what, failure) => {
      const answer = followUpRefusalAnswer(service(failure), PROMPT, AT).text;
      expect(answer).not.toContain('Wait for the result');
      expectToContainAll(answer, [
        'its result will not be posted here. Check the job in the Mintlify dashboard before you send it again.',
        ECHO,
      ]);
    },
  );

  // Failed before: "its result will not be posted here", while a round tracked as unsure posts it if the agent took it;
  // then "if it did, its result will be posted", while one taken up later, or ended on the same pull request between
  // two polls, is not seen.
  it.each(unknownFate)(
    'by %s, its round tracked: a result only if the bot sees the agent take it up, and the dashboard',
    (_what, failure) => {
      const answer = followUpRefusalAnswer({ ...service(failure), tracked: true }, PROMPT, AT).text;
      expect(answer).not.toContain('will not be posted');
      expectToContainAll(answer, [
        'so I cannot tell whether the agent received this instruction. If I see the agent take it up in the next few minutes, I post its result here; if I don’t, I say nothing more, though the agent may still have made the change. Check the job in the Mintlify dashboard before you send it again.',
        ECHO,
      ]);
    },
  );
});

describe('an untracked start (the job runs; its thread could not be bound)', () => {
  // Fails today: answers.ts words `untracked` as `store_unavailable`, "I could not take this on. Try again shortly",
  // while the job runs (the thread was just told so): a person who tries again starts a second job.
  it('tells the person the agent has the instruction and where its result will be, never to try again', () => {
    const answer = startRefusalAnswer({ code: 'untracked' }, PROMPT, AT);
    expect(answer.text).not.toContain('could not take this on');
    expect(answer.text).not.toMatch(/try again/i);
    expect(answer.text).toContain('Mintlify dashboard');
  });
});
