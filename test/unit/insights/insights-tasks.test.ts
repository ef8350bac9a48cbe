import { describe, expect, it } from 'vitest';
import { INSIGHTS_DIGEST } from '../../../src/insights/digest/kind.js';
import { insightsTasks } from '../../../src/insights/insights-tasks.js';
import { saveSubscription } from '../../../src/visitors/digest/store.js';
import { AUDIENCE, fakeDeps, fakeVisitorsService, NOW, PROJECT } from '../visitors/fake-deps.js';

describe('an /insights digest change the app could not run', () => {
  it('says the insights digest is as it was, naming it, with what was typed', async () => {
    const { deps, responses } = fakeDeps(fakeVisitorsService(0));
    const schedule = { cadence: 'weekly', hour: 9, minute: 0, weekday: 1 } as const;
    const subscription = { channel: AUDIENCE.channel, project: PROJECT, schedule, createdBy: 'U1', createdAt: NOW };
    await saveSubscription(deps, subscription, INSIGHTS_DIGEST);
    const typed = '/insights digest off';
    const request = { command: { kind: 'off' as const }, project: PROJECT, audience: AUDIENCE, typed };
    await insightsTasks.digest.unavailable?.(deps, request, 'restarting');
    const answer = String(responses.at(-1)?.body.text);
    expect(answer).toContain('restarting');
    expect(answer).toContain('stays as it was: the insights digest of project `proj_test` weekly on Monday');
    expect(answer).toContain(`You wrote: \`${typed}\``);
  });
});
