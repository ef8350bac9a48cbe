import { describe, expect, it, vi } from 'vitest';
import { listSubscriptions } from '../../../../src/visitors/digest/store.js';
import { manageDigest } from '../../../../src/visitors/digest/subscribe.js';
import type { DigestRequest } from '../../../../src/visitors/requests.js';
import { AUDIENCE, fakeDeps, fakeVisitorsService, NOW, PROJECT } from '../fake-deps.js';

const WEEKLY = { cadence: 'weekly', hour: 16, minute: 30, weekday: 5 } as const;
const ask = (command: DigestRequest['command']): DigestRequest => ({ command, project: PROJECT, audience: AUDIENCE });

describe('manageDigest', () => {
  it('subscribes the conversation, shows the subscription, and ends it', async () => {
    const { deps, logs, engine } = fakeDeps(fakeVisitorsService(0));
    expect(await manageDigest(deps, ask({ kind: 'show' }))).toEqual({ kind: 'shown', subscription: undefined });

    expect(await manageDigest(deps, ask({ kind: 'subscribe', schedule: WEEKLY }))).toEqual({
      kind: 'subscribed',
      schedule: WEEKLY,
    });
    const subscription = {
      channel: 'C123DOCS',
      project: PROJECT,
      schedule: WEEKLY,
      createdBy: 'U123ALICE',
      createdAt: NOW,
    };
    expect(await listSubscriptions(deps)).toEqual([subscription]);
    expect(await manageDigest(deps, ask({ kind: 'show' }))).toEqual({ kind: 'shown', subscription });
    // Its scheduler on the engine, on the subscription's cron in its zone (UTC when it has none).
    expect(await engine.schedules('digests')).toMatchObject([
      { id: 'digest/C123DOCS', schedule: { cron: '30 16 * * 5', tz: 'UTC' }, nextAt: expect.any(Number) },
    ]);
    await manageDigest(deps, ask({ kind: 'subscribe', schedule: { ...WEEKLY, tz: 'Pacific/Auckland' } }));
    expect(await engine.schedules('digests')).toMatchObject([
      { id: 'digest/C123DOCS', schedule: { cron: '30 16 * * 5', tz: 'Pacific/Auckland' }, nextAt: expect.any(Number) },
    ]);

    expect(await manageDigest(deps, ask({ kind: 'off' }))).toEqual({ kind: 'ended', existed: true });
    expect(await engine.schedules('digests')).toEqual([]);
    expect(await manageDigest(deps, ask({ kind: 'off' }))).toEqual({ kind: 'ended', existed: false });
    expect(await listSubscriptions(deps)).toEqual([]);
    expect(logs.text()).toContain('"event":"visitors.digest_subscribed"');
    expect(logs.text()).toContain('"event":"visitors.digest_unsubscribed"');
  });

  it('a change whose scheduler is not written puts the digest back as it was; off is off without its scheduler', async () => {
    const { deps, logs, engine } = fakeDeps(fakeVisitorsService(0));
    await manageDigest(deps, ask({ kind: 'subscribe', schedule: WEEKLY }));
    const digests = deps.lanes.tasks.digests;
    const lost = new Error('Connection is closed.');
    vi.spyOn(digests, 'schedule').mockRejectedValueOnce(lost);
    const daily = { cadence: 'daily', hour: 8, minute: 0 } as const;
    expect(await manageDigest(deps, ask({ kind: 'subscribe', schedule: daily }))).toEqual({
      kind: 'unchanged',
      still: expect.objectContaining({ schedule: WEEKLY }),
      typed: '/visitors digest daily 08:00 utc', // as it reads: this request did not keep what was typed
    });
    expect(logs.text()).toContain('"event":"visitors.digest_not_changed"');
    expect(await listSubscriptions(deps)).toEqual([expect.objectContaining({ schedule: WEEKLY })]);
    expect((await engine.schedules('digests')).map((s) => s.schedule)).toEqual([{ cron: '30 16 * * 5', tz: 'UTC' }]);

    vi.spyOn(digests, 'unschedule').mockRejectedValueOnce(lost);
    expect(await manageDigest(deps, ask({ kind: 'off' }))).toEqual({ kind: 'ended', existed: true });
    expect(await listSubscriptions(deps)).toEqual([]);
    expect(logs.text()).toContain('"event":"visitors.digest_unschedule_failed"');

    vi.spyOn(digests, 'schedule').mockRejectedValueOnce(lost);
    const typed = '/visitors digest weekly fri 16:30';
    expect(await manageDigest(deps, { ...ask({ kind: 'subscribe', schedule: WEEKLY }), typed })).toEqual({
      kind: 'unchanged',
      still: undefined,
      typed,
    });
    expect(await listSubscriptions(deps)).toEqual([]);
  });
});
