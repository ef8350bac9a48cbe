import { describe, expect, it } from 'vitest';
import { jobChanged, publishHome, tabOpened } from '../../../src/home/publish.js';
import { republishHome } from '../../../src/home/republish.js';
import { Again } from '../../../src/queue/engine.js';
import { USER_ID } from '../../fixtures/slack.js';
import { boundJob, storeDown, useAgentUnit } from '../agent/support.js';

const BOB = 'U456BOB';

describe('App Home publishing', () => {
  const unit = useAgentUnit();

  /** Every Home the person was shown, as published (text of its blocks). */
  const homesOf = (userId = USER_ID) =>
    unit()
      .slack.views.filter((v) => v.via === 'views.publish' && v.user_id === userId)
      .map((v) => JSON.stringify(v.view.blocks));
  const publishes = () => unit().slack.callsTo('views.publish').length;

  it('opening the Home tab shows the person’s jobs with a link to each thread, and this hour’s quota', async () => {
    const { deps, slack } = unit();
    const record = await boundJob(deps);
    await deps.quota.take('proj_test', 'create');
    await tabOpened(deps, { userId: USER_ID, tab: 'home' });
    const [home] = homesOf();
    expect(home).toContain('Document the retry policy');
    expect(home).toContain(slack.permalink(record.channel, record.statusTs));
    expect(home).toContain('new jobs: 1 of 100 used, 99 left');
  });

  it('shows only the person’s own jobs, newest first', async () => {
    const { deps } = unit();
    await boundJob(deps, { jobId: 'job_1', prompt: 'First of mine' });
    await boundJob(deps, { jobId: 'job_2', prompt: 'Bob’s own', userId: BOB });
    await boundJob(deps, { jobId: 'job_3', prompt: 'Second of mine' });
    await publishHome(deps, USER_ID);
    const [home = ''] = homesOf();
    expect(home).not.toContain('Bob’s own');
    expect(home.indexOf('Second of mine')).toBeLessThan(home.indexOf('First of mine'));
  });

  it('opening the Messages tab publishes nothing, and Home no longer follows the person’s jobs', async () => {
    const { deps } = unit();
    const record = await boundJob(deps);
    await tabOpened(deps, { userId: USER_ID, tab: 'home' });
    await tabOpened(deps, { userId: USER_ID, tab: 'messages' });
    await jobChanged(deps, record);
    expect(publishes()).toBe(1);
  });

  it('a job’s change republishes its owner’s Home (through the homes lane) while it is their last tab, no one else’s', async () => {
    const { deps, engine } = unit();
    const record = await boundJob(deps);
    await tabOpened(deps, { userId: USER_ID, tab: 'home' });
    await tabOpened(deps, { userId: BOB, tab: 'home' });
    await deps.store.jobs.endRound(record, 0, 'pull_request', 'https://github.com/acme/docs/pull/3');
    await jobChanged(deps, record);
    await jobChanged(deps, record);
    expect(await engine.counts('homes')).toMatchObject({ waiting: 1 }); // one publish waits per person
    await republishHome(deps, { workspace: deps.workspace, userId: USER_ID });
    expect(homesOf()).toHaveLength(2);
    expect(homesOf()[1]).toContain('Pull request ready');
    expect(homesOf(BOB)).toHaveLength(1);
  });

  it('a job’s change publishes nothing for a person who never opened Home', async () => {
    const { deps } = unit();
    await jobChanged(deps, await boundJob(deps));
    expect(publishes()).toBe(0);
  });

  it('asks Slack for a thread’s link once, then reuses it', async () => {
    const { deps, slack } = unit();
    await boundJob(deps);
    await publishHome(deps, USER_ID);
    await publishHome(deps, USER_ID);
    expect(slack.callsTo('chat.getPermalink')).toHaveLength(1);
    expect(homesOf()[1]).toContain('Open thread');
  });

  it('lists a job without its link when Slack gives none', async () => {
    const { deps, slack } = unit();
    await boundJob(deps);
    slack.fail('chat.getPermalink', { error: 'message_not_found' });
    await publishHome(deps, USER_ID);
    const [home] = homesOf();
    expect(home).toContain('Document the retry policy');
    expect(home).not.toContain('Open thread');
  });

  it('logs and drops a Home view Slack refuses for good; waits out a 429 on the same job', async () => {
    const { deps, slack, logs } = unit();
    const data = { workspace: deps.workspace, userId: USER_ID };
    slack.fail('views.publish', { error: 'invalid_blocks' });
    await expect(republishHome(deps, data)).resolves.toBeUndefined();
    expect(logs.text()).toMatch(/"event":"slack\.views_publish_failed".*"slack_error":"invalid_blocks"/);
    slack.fail('views.publish', { status: 429, retryAfterSec: 7 });
    expect(await republishHome(deps, data)).toEqual(new Again(data, 7_000));
  });

  it('opening Home where the app’s Home tab is off logs Slack’s reason under the same event, and queues nothing', async () => {
    const { deps, slack, logs, engine } = unit();
    slack.fail('views.publish', { error: 'not_enabled' });
    await tabOpened(deps, { userId: USER_ID, tab: 'home' });
    expect(logs.text()).toMatch(/"event":"slack\.views_publish_failed","op":"home","slack_error":"not_enabled"/);
    expect(await engine.counts('homes')).toMatchObject({ waiting: 0 });
  });

  it('still publishes Home when the store cannot remember the tab, and logs it', async () => {
    const { deps, logs } = unit();
    await boundJob(deps);
    await tabOpened({ ...deps, store: { ...deps.store, kv: storeDown().kv } }, { userId: USER_ID, tab: 'home' });
    expect(homesOf()).toEqual([expect.stringContaining('Document the retry policy')]);
    expect(logs.text()).toContain('"event":"store.unavailable"');
  });
});

describe('App Home without the store', () => {
  const unit = useAgentUnit();

  it('opening Home logs the outage as the store’s and never throws (a task that throws is a bug)', async () => {
    const { deps, logs } = unit();
    await expect(tabOpened({ ...deps, store: storeDown() }, { userId: USER_ID, tab: 'home' })).resolves.toBeUndefined();
    expect(logs.text()).toContain('"event":"store.unavailable"');
    expect(logs.text()).not.toContain('views_publish_failed');
  });

  it('opening Home while the store cannot read the jobs hands the publish to the homes lane', async () => {
    const { deps, engine } = unit();
    const jobs = storeDown().jobs;
    await tabOpened({ ...deps, store: { ...deps.store, jobs } }, { userId: USER_ID, tab: 'home' });
    expect(await engine.counts('homes')).toMatchObject({ waiting: 1 });
  });

  it('a republish the store fails is thrown for the lane to try again, not dropped as Slack’s refusal', async () => {
    const { deps, logs } = unit();
    const data = { workspace: deps.workspace, userId: USER_ID };
    await expect(republishHome({ ...deps, store: storeDown() }, data)).rejects.toThrow('unavailable');
    expect(logs.text()).not.toContain('slack.views_publish_failed');
  });
});
