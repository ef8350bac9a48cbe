import { describe, expect, it } from 'vitest';
import { VISITORS_DIGEST } from '../../../../src/visitors/digest/kind.js';
import { digestAnswer, digestUnavailable } from '../../../../src/visitors/digest/messages.js';
import { getSubscription, saveSubscription } from '../../../../src/visitors/digest/store.js';
import { AUDIENCE, fakeDeps, fakeVisitorsService, NOW, PROJECT } from '../fake-deps.js';

const WEEKLY = { cadence: 'weekly', hour: 16, minute: 30, weekday: 5 } as const;

describe('digestAnswer', () => {
  it('says when the next digest goes out and which period it covers', () => {
    const text = digestAnswer({ kind: 'subscribed', schedule: WEEKLY }, NOW).text;
    expect(text).toContain('weekly on Friday at 16:30 UTC');
    expect(text).toContain('Next: 27 Nov 2026 16:30 UTC, covering 20–26 Nov 2026');
  });

  it('skips a time whose period already went out (a schedule changed after that day’s digest), as the run does', () => {
    // NOW is Sunday 22 Nov: Friday 27 Nov's digest covers 20–26 Nov, which went out already (set Thursday before).
    const lastSent = { cadence: 'weekly', from: '2026-11-20' } as const;
    const text = digestAnswer({ kind: 'subscribed', schedule: WEEKLY, lastSent }, NOW).text;
    expect(text).toContain('Next: 4 Dec 2026 16:30 UTC, covering 27 Nov – 3 Dec 2026');
    const other = { cadence: 'daily', from: '2026-11-20' } as const;
    expect(digestAnswer({ kind: 'subscribed', schedule: WEEKLY, lastSent: other }, NOW).text).toContain(
      'Next: 27 Nov 2026 16:30 UTC',
    );
  });

  it('names who set up the digest and its project, escaped', () => {
    const subscription = { channel: 'C1', project: PROJECT, schedule: WEEKLY, createdBy: 'U123ALICE', createdAt: NOW };
    const text = digestAnswer({ kind: 'shown', subscription }, NOW).text;
    expect(text).toContain(`project \`${PROJECT}\``);
    expect(text).toContain('set up by <@U123ALICE>');
  });

  it('tells an ended digest from one that never was', () => {
    expect(digestAnswer({ kind: 'ended', existed: true }, NOW).text).toContain('is off');
    expect(digestAnswer({ kind: 'ended', existed: false }, NOW).text).toContain('had no visitors digest');
    expect(digestAnswer({ kind: 'shown', subscription: undefined }, NOW).text).toContain('has no visitors digest');
  });
});

describe('digestUnavailable', () => {
  const typed = '/visitors digest daily 07:30';
  const request = { command: { kind: 'off' as const }, project: PROJECT, audience: AUDIENCE, typed };
  const visitors = { kind: VISITORS_DIGEST, read: getSubscription };
  const answer = (responses: { body: Record<string, unknown> }[]) => String(responses.at(-1)?.body.text);

  it('a change not run says the digest is as it was, naming it, with what was typed', async () => {
    const { deps, responses } = fakeDeps(fakeVisitorsService(0));
    const subscription = {
      channel: AUDIENCE.channel,
      project: PROJECT,
      schedule: WEEKLY,
      createdBy: 'U1',
      createdAt: NOW,
    };
    await saveSubscription(deps, subscription);
    await digestUnavailable('went wrong', visitors)(deps, request, 'restarting');
    expect(answer(responses)).toContain('restarting');
    expect(answer(responses)).toContain('stays as it was: the visitors digest of project `proj_test` weekly on Friday');
    expect(answer(responses)).toContain(`You wrote: \`${typed}\``);
    await digestUnavailable('went wrong', visitors)(deps, request, 'failed');
    expect(answer(responses)).toContain('may not have been made: `/visitors digest` shows the digest as it is now');
    expect(answer(responses)).toContain(`You wrote: \`${typed}\``);
  });
});
