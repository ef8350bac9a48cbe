import { describe, expect, it } from 'vitest';
import { homeOpened } from '../fixtures/conversation.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

const BOB = 'U456BOB';

describe.each(storeKinds)('App Home ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: 60_000 }, boot: true });

  const openTab = (user: string, tab: 'home' | 'messages') => h.deliver(homeOpened(user, tab));
  const published = (user: string) => h.slack.callsTo('views.publish').filter((c) => c.args.user_id === user);
  const lastHome = (user: string) => JSON.stringify(published(user).at(-1)?.args.view);

  /** Starts a job as `user` and waits until the store lists it among theirs (what Home reads). */
  async function startJob(user: string, prompt: string) {
    await h.startJob(prompt, { user });
    const { jobs } = h.app.app.deps.store;
    const [ref] = await eventually(async () => {
      const refs = await jobs.forUser(user, 10);
      const records = await Promise.all(refs.map((r) => jobs.get(r)));
      return records.some((r) => r?.prompt === prompt) && refs;
    });
    return ref as { project: string; jobId: string };
  }

  it('shows the owner their own jobs (prompt, status, age, project, thread, PR) and quota; another person sees none of it', async () => {
    const alices = await startJob(USER_ID, 'Document the retry policy for <alice>');
    await startJob(BOB, 'Bob’s secret plan');
    h.sim.endJob(alices.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/77' });
    await eventually(async () => (await h.app.app.deps.store.jobs.get(alices))?.ended === 'pull_request');

    await openTab(USER_ID, 'home');
    const home = await eventually(() => published(USER_ID).length && lastHome(USER_ID));
    expect(home).toContain('Your Mintlify agent jobs');
    expect(home).toContain('>Document the retry policy for &lt;alice&gt;');
    expect(home).toContain('Pull request ready');
    expect(home).toContain('"text":"Pull request"},"url":"https://github.com/acme/docs/pull/77"');
    expect(home).toContain(`<https://acme.slack.com/archives/${CHANNEL_ID}/p`);
    expect(home).toMatch(/\d+s ago/);
    expect(home).toContain(
      `\`${TEST_PROJECT_ID}\` · new jobs: 2 of 100 used, 98 left · follow-ups: 0 of 100 used, 100 left`,
    );
    expect(home).toContain('How to start a job');
    expect(home).not.toContain('secret plan');

    await openTab(BOB, 'home');
    const bobs = await eventually(() => published(BOB).length && lastHome(BOB));
    expect(bobs).toContain('Bob’s secret plan');
    expect(bobs).toContain('Working');
    expect(bobs).not.toContain('retry policy for');
    expect(bobs).not.toContain('pull/77');
  });

  it('shows a pull request whose link is too long for a section’s text (Slack accepts the Home, the link a button)', async () => {
    const job = await startJob(USER_ID, 'Document the long branch');
    const prLink = `https://github.com/acme/docs/pull/9?${'q'.repeat(2_900)}`;
    h.sim.endJob(job.jobId, { status: 'completed', prLink });
    await eventually(async () => (await h.app.app.deps.store.jobs.get(job))?.prLink === prLink);

    await openTab(USER_ID, 'home');
    const stored = () => h.slack.views.filter((v) => v.via === 'views.publish' && v.user_id === USER_ID);
    const home = await eventually(() => stored().length && JSON.stringify(stored().at(-1)?.view));
    expect(home).toContain('Document the long branch');
    expect(home).toContain(`"url":"${prLink}"`);
    expect(h.app.logs()).not.toContain('views_publish_failed');
  });

  it('shows a person with no jobs the how-to', async () => {
    await openTab('U777NEW', 'home');
    const home = await eventually(() => published('U777NEW').length && lastHome('U777NEW'));
    expect(home).toContain('You have not started a job yet.');
    expect(home).toContain('How to start a job');
  });

  it('is refreshed when one of the person’s jobs changes state while Home is their last opened tab, not after they left it', async () => {
    await openTab(USER_ID, 'home');
    await eventually(() => published(USER_ID).length === 1);
    const first = await startJob(USER_ID, 'First job');
    await eventually(() => lastHome(USER_ID).includes('First job'), 5_000, 'home refreshed for the new job');
    h.sim.endJob(first.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/5' });
    await eventually(() => lastHome(USER_ID).includes('pull/5'), 5_000, 'home refreshed for the outcome');

    await openTab(USER_ID, 'messages');
    await settle();
    const count = published(USER_ID).length;
    const second = await startJob(USER_ID, 'Second job');
    h.sim.endJob(second.jobId, { status: 'failed' });
    await eventually(async () => (await h.app.app.deps.store.jobs.get(second))?.ended === 'failed');
    await settle();
    expect(published(USER_ID)).toHaveLength(count);
    expect(published(BOB)).toHaveLength(0);
  });
});

// 2,000 channels, each with its own project: Home packed the projects' lines into sections but not into a bounded
// number of them, so past some 1,500 projects Slack refused the view (over 100 blocks) and the person's Home stayed
// blank or stale. Cut to 100 blocks, the lines still came to some 270 kB, past the 250 kB Slack takes of a view
// (view_too_large): the lists now share what the rest leaves of both.
describe('App Home with many projects', () => {
  const COUNT = 2_000;
  const routes = Array.from({ length: COUNT }, (_, i) => `C${String(i).padStart(5, '0')}DOCS:proj_documentation_${i}`);
  const h = useHarness({ env: { MINTLIFY_CHANNEL_PROJECTS: routes.join(',') }, boot: true });

  it('publishes, its project lines cut to what fits, with how many more and where to see them all', async () => {
    await h.deliver(homeOpened(USER_ID, 'home'));
    const stored = () => h.slack.views.filter((v) => v.via === 'views.publish' && v.user_id === USER_ID);
    const home = await eventually(() => stored().length && JSON.stringify(stored().at(-1)?.view), 10_000, 'the Home');
    expect(home).toContain('This hour');
    expect(home).toContain(`\`${TEST_PROJECT_ID}\` · new jobs: 0 of 100 used`);
    expect(home).toContain('Feedback this week');
    expect(home).toMatch(/and \d+ more projects \(`\/agent projects` lists them all\)/);
    expect(home).toContain('How to start a job');
    expect(h.app.logs()).not.toContain('views_publish_failed');
  });
});
