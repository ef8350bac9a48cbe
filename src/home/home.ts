import type { App } from '@slack/bolt';
import type { AgentContext } from '../agent/context.js';
import { slackErrorCode } from '../slack/errors.js';
import { type JobRecord, RECORD_TTL_MS } from '../store/jobs.js';
import { HOME_JOBS, type HomeJob, homeView } from './view.js';

const tabKey = (userId: string) => `home-tab:${userId}`;
const permalinkKey = (channel: string, ts: string) => `permalink:${channel}:${ts}`;

/**
 * App Home: each person's own jobs, the hourly quota and a how-to, published when they open the tab and again
 * whenever one of their jobs changes state while Home is the tab they last opened.
 */
export function registerHome(app: App, ctx: AgentContext): void {
  app.event('app_home_opened', async ({ event }) => {
    const { user, tab } = event;
    await ctx.afterAck(async () => {
      await ctx.store.kv
        .set(tabKey(user), tab, RECORD_TTL_MS)
        .catch((error) => ctx.log.warn('store.unavailable', { op: 'home.tab', error }));
      if (tab === 'home') await publishHome(ctx, user);
    });
  });

  ctx.jobWatchers?.add(async (record) => {
    if ((await ctx.store.kv.get<string>(tabKey(record.userId))) === 'home') await publishHome(ctx, record.userId);
  });
}

/** Builds and publishes `userId`'s Home tab from the store; only records that person started are shown. */
export async function publishHome(ctx: AgentContext, userId: string): Promise<void> {
  const refs = await ctx.store.jobs.forUser(userId, HOME_JOBS);
  const records = await Promise.all(refs.map((ref) => ctx.store.jobs.get(ref).catch(() => undefined)));
  const jobs: HomeJob[] = await Promise.all(
    records
      .filter((record): record is JobRecord => record?.userId === userId)
      .map(async (record) => ({ record, threadLink: await permalink(ctx, record.channel, record.statusTs) })),
  );
  const quotas = await Promise.all(
    ctx.projects.all.map(async (project) => ({
      project,
      create: await ctx.quota.usage(project, 'create'),
      followUp: await ctx.quota.usage(project, 'follow_up'),
    })),
  );
  await ctx.slack.views
    .publish({ user_id: userId, view: homeView(jobs, quotas, ctx.now()) })
    .catch((error) => ctx.log.warn('slack.views_publish_failed', { op: 'home', slack_error: slackErrorCode(error) }));
}

/** A message's permalink, cached (it never changes); `undefined` when Slack will not give one. */
async function permalink(ctx: AgentContext, channel: string, ts: string): Promise<string | undefined> {
  const key = permalinkKey(channel, ts);
  const cached = await ctx.store.kv.get<string>(key).catch(() => undefined);
  if (cached) return cached;
  try {
    const link = (await ctx.slack.chat.getPermalink({ channel, message_ts: ts })).permalink;
    if (link) await ctx.store.kv.set(key, link, RECORD_TTL_MS).catch(() => {});
    return link;
  } catch {
    return undefined;
  }
}
