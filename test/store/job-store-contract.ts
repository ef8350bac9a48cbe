import { describe, expect, it } from 'vitest';
import { type JobBinding, USER_INDEX_MAX } from '../../src/store/jobs.js';
import type { Store } from '../../src/store/store.js';

export function binding(overrides: Partial<JobBinding> = {}): JobBinding {
  return {
    project: 'proj_a',
    jobId: 'job-1',
    channel: 'C1',
    threadTs: '1700000000.000100',
    statusTs: '1700000000.000100',
    userId: 'U1',
    prompt: 'Document the retry policy',
    createdAtMs: 1_000,
    ...overrides,
  };
}

const ref = (overrides: Partial<JobBinding> = {}) => {
  const { project, jobId } = binding(overrides);
  return { project, jobId };
};

/** The job store's transitions, run unchanged on every store (memory and Redis). */
export function jobStoreContract(current: () => Store): void {
  describe('jobs', () => {
    const jobs = () => current().jobs;

    it('binds a new job to its thread and tracks it', async () => {
      const created = await jobs().create(binding(), { status: 'active', repository: 'acme/docs', model: 'm1' }, 5);
      expect(created).toMatchObject({ round: 0, rev: 0, ended: null, attempt: null, roundStartedAtMs: 5 });
      expect(await jobs().get(ref())).toEqual(created);
      expect(await jobs().get(ref())).toMatchObject({ repository: 'acme/docs', ref: null, model: 'm1', prLink: null });
      expect(await jobs().active('proj_a')).toEqual(['job-1']);
      expect(await jobs().forThread(['proj_x', 'proj_a'], 'C1', '1700000000.000100')).toEqual(ref());
    });

    it('binds a vanished job again only when nothing bound it meanwhile: a round started since is kept', async () => {
      const healed = await jobs().rebind(binding(), { status: 'active' }, 3);
      expect(healed).toMatchObject({ round: 0, roundStartedAtMs: 3 });
      expect(await jobs().forThread(['proj_a'], 'C1', '1700000000.000100')).toEqual(ref());
      await jobs().startRound(binding(), 9);
      expect(await jobs().rebind(binding(), { status: 'active' }, 3)).toBeUndefined();
      expect(await jobs().get(ref())).toMatchObject({ round: 1, roundStartedAtMs: 9 });
    });

    it('hands out copies: changing a record it returned, or the binding it was given, changes nothing stored', async () => {
      const given = binding();
      const created = await jobs().create(given, { status: 'active' }, 1);
      Object.assign(given, { prompt: 'changed' });
      Object.assign(created, { round: 7, status: 'changed' });
      const read = await jobs().get(ref());
      Object.assign(read ?? {}, { ended: 'failed', rev: 9 });
      expect(await jobs().get(ref())).toMatchObject({
        prompt: 'Document the retry policy',
        round: 0,
        status: 'active',
      });
      expect(await jobs().get(ref())).toMatchObject({ ended: null, rev: 0 });
    });

    it('knows nothing of a job never bound or a thread that is not a job’s', async () => {
      expect(await jobs().get(ref())).toBeUndefined();
      expect(await jobs().forThread(['proj_a'], 'C1', '1.2')).toBeUndefined();
      expect(await jobs().forThread([], 'C1', '1.2')).toBeUndefined();
      expect(await jobs().active('proj_a')).toEqual([]);
    });

    it('keeps projects apart: the same job id and thread in two projects are two jobs', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      await jobs().create(binding({ project: 'proj_b', prompt: 'other' }), { status: 'active' }, 1);
      await jobs().startRound(binding({ project: 'proj_b' }), 2);
      expect((await jobs().get(ref()))?.round).toBe(0);
      expect((await jobs().get(ref({ project: 'proj_b' })))?.round).toBe(1);
      expect(await jobs().forThread(['proj_b'], 'C1', '1700000000.000100')).toEqual(ref({ project: 'proj_b' }));
      await jobs().endRound(ref({ project: 'proj_b' }), 1, 'no_changes');
      expect(await jobs().active('proj_a')).toEqual(['job-1']);
      expect(await jobs().active('proj_b')).toEqual([]);
    });

    it('starts a new round on a follow-up: round + 1, active again, outcome and attempt cleared', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      await jobs().beginPost(ref(), 0, 10);
      await jobs().endRound(ref(), 0, 'pull_request', 'https://github.com/acme/docs/pull/1');
      const next = await jobs().startRound(binding(), 50);
      expect(next).toMatchObject({ round: 1, status: 'active', ended: null, attempt: null, roundStartedAtMs: 50 });
      expect(next.prLink).toBe('https://github.com/acme/docs/pull/1');
      expect(next.rev).toBe(2);
      expect(await jobs().active('proj_a')).toEqual(['job-1']);
    });

    it('starts an unsure round (a follow-up of unknown fate) keeping the end the thread was told', async () => {
      const PR = 'https://github.com/acme/docs/pull/1';
      // A record as the previous release wrote it has no `unsure`: its rounds read as sure.
      expect(await jobs().create(binding(), { status: 'active' }, 1)).not.toHaveProperty('unsure', expect.anything());
      await jobs().endRound(ref(), 0, 'pull_request', PR);
      const unsure = await jobs().startRound(binding(), 5, '1700000005.000100');
      expect(unsure).toMatchObject({ round: 1, ended: null, unsure: 'pull_request', prLink: PR });
      // Failed before (no `unsureTs`): the reply marked ❔ is kept, to be marked ✅ once its result is posted.
      expect(await jobs().get(ref())).toMatchObject({
        round: 1,
        unsure: 'pull_request',
        unsureTs: '1700000005.000100',
      });
      // Failed before (undefined): an unsure round still open has told the thread nothing new, so the next unsure one
      // keeps the same end; a sure follow-up's round is sure either way.
      expect(await jobs().startRound(binding(), 6, '1700000006.000100')).toMatchObject({
        unsure: 'pull_request',
        unsureTs: '1700000006.000100',
      });
      await jobs().endRound(ref(), 2, 'no_changes');
      expect(await jobs().get(ref())).toMatchObject({ ended: 'no_changes', unsureTs: '1700000006.000100' });
      expect((await jobs().startRound(binding(), 7)).unsure).toBeUndefined();
      expect(await jobs().get(ref())).not.toHaveProperty('unsureTs', expect.anything());
      expect((await jobs().get(ref()))?.unsure).toBeUndefined();
      // A round that had not ended, and was sure, has told the thread nothing: the next one is sure either way.
      const after = await jobs().startRound(binding(), 8, '1700000008.000100');
      expect(after.unsure).toBeUndefined();
      expect(after.unsureTs).toBeUndefined();
    });

    it('gives concurrent follow-ups a round each, never the same one twice', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      const rounds = await Promise.all(Array.from({ length: 10 }, (_, i) => jobs().startRound(binding(), i)));
      expect(rounds.map((r) => r.round).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect((await jobs().get(ref()))?.round).toBe(10);
    });

    it('binds a vanished record again from the follow-up’s thread', async () => {
      const started = await jobs().startRound(binding({ prompt: 'the follow-up' }), 7);
      expect(started).toMatchObject({ round: 1, prompt: 'the follow-up', channel: 'C1', status: 'active' });
      expect(await jobs().forThread(['proj_a'], 'C1', '1700000000.000100')).toEqual(ref());
      expect(await jobs().active('proj_a')).toEqual(['job-1']);
    });

    it('ends the current round once: stops tracking, keeps the PR link', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      const ended = await jobs().endRound(ref(), 0, 'pull_request', 'https://github.com/acme/docs/pull/9');
      expect(ended).toMatchObject({
        ok: true,
        record: { ended: 'pull_request', prLink: 'https://github.com/acme/docs/pull/9' },
      });
      expect(await jobs().active('proj_a')).toEqual([]);
      const again = await jobs().endRound(ref(), 0, 'failed');
      expect(again.ok).toBe(false);
      expect(again.record?.ended).toBe('pull_request');
    });

    it('never ends a round that a follow-up replaced while its outcome was being posted', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      expect(await jobs().beginPost(ref(), 0, 10)).toEqual({ ok: true, earlierAttempt: false });
      await jobs().startRound(binding(), 20); // the follow-up lands mid-post
      const stale = await jobs().endRound(ref(), 0, 'pull_request', 'https://github.com/acme/docs/pull/1');
      expect(stale.ok).toBe(false);
      // The PR is in the thread, so the next round will say it "updated" it.
      expect(await jobs().get(ref())).toMatchObject({
        round: 1,
        ended: null,
        status: 'active',
        prLink: 'https://github.com/acme/docs/pull/1',
      });
      expect(await jobs().active('proj_a')).toEqual(['job-1']);
    });

    it('stops tracking a round whose outcome cannot be posted, but not a newer round', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      await jobs().startRound(binding(), 2);
      expect((await jobs().stopTracking(ref(), 0)).ok).toBe(false);
      expect(await jobs().active('proj_a')).toEqual(['job-1']);
      expect(await jobs().stopTracking(ref(), 1)).toMatchObject({ ok: true, record: { ended: 'untracked' } });
      expect(await jobs().active('proj_a')).toEqual([]);
    });

    it('stops a round whose tracking failed for good once, whoever asks second is told no', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      const [first, second] = await Promise.all([
        jobs().stopTracking(ref(), 0, 'stopped'),
        jobs().stopTracking(ref(), 0, 'stopped'),
      ]);
      expect([first.ok, second.ok].sort()).toEqual([false, true]);
      expect(await jobs().get(ref())).toMatchObject({ round: 0, ended: 'stopped' });
      expect(await jobs().active('proj_a')).toEqual([]);
      // A reply in the thread resumes it: the next round is tracked again.
      expect(await jobs().startRound(binding(), 2)).toMatchObject({ round: 1, ended: null });
      expect(await jobs().active('proj_a')).toEqual(['job-1']);
    });

    it('a person’s Stop ends the running round as halted, once; a round that ended already is left as it is', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      const [first, second] = await Promise.all([
        jobs().stopTracking(ref(), 0, 'halted', 'U1'),
        jobs().stopTracking(ref(), 0, 'halted', 'U2'),
      ]);
      expect([first.ok, second.ok].sort()).toEqual([false, true]);
      // Who stopped it is whoever's stop took: the other is told the round ended already.
      const by = first.ok ? 'U1' : 'U2';
      expect(await jobs().get(ref())).toMatchObject({ ended: 'halted', stoppedBy: by });
      expect(await jobs().active('proj_a')).toEqual([]);
      await jobs().startRound(binding(), 2);
      await jobs().endRound(ref(), 1, 'pull_request', 'https://github.com/acme/docs/pull/1');
      expect(await jobs().stopTracking(ref(), 1, 'halted')).toMatchObject({
        ok: false,
        record: { ended: 'pull_request' },
      });
    });

    it('says whether an earlier attempt may already have posted the round’s outcome, and since when', async () => {
      expect(await jobs().beginPost(ref(), 0, 10)).toEqual({ ok: false, reason: 'missing' });
      await jobs().create(binding(), { status: 'active' }, 1);
      expect(await jobs().beginPost(ref(), 0, 10)).toEqual({ ok: true, earlierAttempt: false });
      expect(await jobs().beginPost(ref(), 0, 20)).toEqual({ ok: true, earlierAttempt: true, atMs: 10 });
      // The first attempt's time is kept: Slack may hold its post, stored before the later attempts began.
      expect(await jobs().beginPost(ref(), 0, 30)).toEqual({ ok: true, earlierAttempt: true, atMs: 10 });
      expect(await jobs().beginPost(ref(), 1, 40)).toEqual({ ok: false, reason: 'superseded' });
      await jobs().endRound(ref(), 0, 'no_changes');
      expect(await jobs().beginPost(ref(), 0, 50)).toEqual({ ok: false, reason: 'ended' });
      await jobs().startRound(binding(), 3);
      expect(await jobs().beginPost(ref(), 1, 60)).toEqual({ ok: true, earlierAttempt: false });
      expect(await jobs().beginPost(ref(), 1, 70)).toEqual({ ok: true, earlierAttempt: true, atMs: 60 });
    });

    it('forgets an attempt Slack refused outright (a 429: nothing posted), and only for its round', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      await jobs().beginPost(ref(), 0, 10);
      await jobs().abandonPost(ref(), 1); // another round's: no change
      expect(await jobs().beginPost(ref(), 0, 20)).toEqual({ ok: true, earlierAttempt: true, atMs: 10 });
      await jobs().abandonPost(ref(), 0);
      expect(await jobs().beginPost(ref(), 0, 30)).toEqual({ ok: true, earlierAttempt: false });
      expect(await jobs().beginPost(ref(), 0, 40)).toEqual({ ok: true, earlierAttempt: true, atMs: 30 });
      await jobs().abandonPost({ project: 'proj_a', jobId: 'nobody' }, 0); // no record: nothing to forget
    });

    it('records what the service reports, bumping rev only on a change', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      expect(await jobs().observe(ref(), { status: 'active', repository: null, ref: undefined, model: null })).toBe(
        false,
      );
      expect((await jobs().get(ref()))?.rev).toBe(0);
      expect(
        await jobs().observe(ref(), { status: 'active', repository: 'acme/docs', ref: 'mintlify/x', model: 'm2' }),
      ).toBe(true);
      expect(await jobs().get(ref())).toMatchObject({
        rev: 1,
        repository: 'acme/docs',
        ref: 'mintlify/x',
        model: 'm2',
      });
      expect(await jobs().observe(ref(), { status: 'active', repository: 'acme/docs' })).toBe(false);
      expect((await jobs().get(ref()))?.rev).toBe(1);
      expect(await jobs().observe(ref({ jobId: 'unknown' }), { status: 'active' })).toBe(false);
      expect(await jobs().get(ref({ jobId: 'unknown' }))).toBeUndefined();
    });

    it('clears an unsure round’s kept end once the job is seen running (the follow-up was taken up)', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      await jobs().endRound(ref(), 0, 'pull_request', 'https://github.com/acme/docs/pull/1');
      const unsure = await jobs().startRound(binding(), 5, '1700000005.000100');
      expect(unsure).toMatchObject({ unsure: 'pull_request', status: 'active' });
      // Failed before (false, `unsure` kept): the job shown as its old end while the agent works on.
      expect(await jobs().observe(ref(), { status: 'active' })).toBe(true);
      const seen = await jobs().get(ref());
      expect(seen?.unsure).toBeUndefined();
      expect(seen?.rev).toBe(unsure.rev + 1);
      expect(await jobs().observe(ref(), { status: 'active' })).toBe(false);
    });

    it('untracks an id without touching its record', async () => {
      await jobs().create(binding(), { status: 'active' }, 1);
      await jobs().untrack(ref());
      expect(await jobs().active('proj_a')).toEqual([]);
      expect((await jobs().get(ref()))?.round).toBe(0);
    });

    it('lists a person’s own jobs, newest first, and nobody else’s', async () => {
      await jobs().create(binding({ jobId: 'a', createdAtMs: 1 }), { status: 'active' }, 1);
      await jobs().create(binding({ jobId: 'b', createdAtMs: 2, project: 'proj_b' }), { status: 'active' }, 2);
      await jobs().create(binding({ jobId: 'c', createdAtMs: 3, userId: 'U2' }), { status: 'active' }, 3);
      await jobs().create(binding({ jobId: 'd', createdAtMs: 4 }), { status: 'active' }, 4);
      expect(await jobs().forUser('U1', 10)).toEqual([
        { project: 'proj_a', jobId: 'd' },
        { project: 'proj_b', jobId: 'b' },
        { project: 'proj_a', jobId: 'a' },
      ]);
      expect(await jobs().forUser('U1', 2)).toEqual([
        { project: 'proj_a', jobId: 'd' },
        { project: 'proj_b', jobId: 'b' },
      ]);
      expect(await jobs().forUser('U2', 10)).toEqual([{ project: 'proj_a', jobId: 'c' }]);
      expect(await jobs().forUser('U3', 10)).toEqual([]);
    });

    it('marks a thread whose job is being created, with whose thread it will be, until the mark is cleared', async () => {
      const thread = ['C1', '1700000000.000100'] as const;
      expect(await jobs().startingIn(['proj_a'], ...thread)).toBeUndefined();
      await jobs().markStarting('proj_a', ...thread, 'joined');
      expect(await jobs().startingIn(['proj_x', 'proj_a'], ...thread)).toBe('joined');
      expect(await jobs().startingIn(['proj_b'], ...thread)).toBeUndefined();
      expect(await jobs().startingIn(['proj_a'], 'C1', '1700000000.000200')).toBeUndefined();
      expect(await jobs().startingIn([], ...thread)).toBeUndefined();
      await jobs().markStarting('proj_b', ...thread, 'own');
      await jobs().clearStarting('proj_a', ...thread);
      expect(await jobs().startingIn(['proj_a'], ...thread)).toBeUndefined();
      expect(await jobs().startingIn(['proj_a', 'proj_b'], ...thread)).toBe('own');
      await jobs().clearStarting('proj_b', ...thread);
      await jobs().clearStarting('proj_b', ...thread); // cleared already: nothing to do
      expect(await jobs().startingIn(['proj_a', 'proj_b'], ...thread)).toBeUndefined();
    });

    it('keeps a starting mark apart from the job it becomes: binding the thread does not clear it', async () => {
      await jobs().markStarting('proj_a', 'C1', '1700000000.000100', 'own');
      await jobs().create(binding(), { status: 'active' }, 1);
      expect(await jobs().startingIn(['proj_a'], 'C1', '1700000000.000100')).toBe('own');
      expect(await jobs().forThread(['proj_a'], 'C1', '1700000000.000100')).toEqual(ref());
    });

    it('keeps only a person’s newest jobs in their index', async () => {
      for (let i = 0; i < USER_INDEX_MAX + 5; i++) {
        await jobs().create(binding({ jobId: `j${i}`, createdAtMs: 100 + i }), { status: 'active' }, i);
      }
      const listed = await jobs().forUser('U1', 1_000);
      expect(listed).toHaveLength(USER_INDEX_MAX);
      expect(listed[0]).toEqual({ project: 'proj_a', jobId: `j${USER_INDEX_MAX + 4}` });
      expect(listed.at(-1)).toEqual({ project: 'proj_a', jobId: 'j5' });
    });
  });
}
