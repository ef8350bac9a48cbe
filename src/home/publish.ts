import { ErrorCode } from '@slack/web-api';
import { weekFeedback } from '../agent/index.js';
import { projectOrigin } from '../config/projects.js';
import type { Deps, JobWatcher } from '../deps.js';
import { classifySlackError, type SlackFailure } from '../slack/errors.js';
import { type JobRecord, RECORD_TTL_MS } from '../store/jobs.js';
import { keys } from '../store/keys.js';
import { connectionSection, mayManage } from '../tenants/index.js';
import type { TabOpened } from './home-tasks.js';
import type { HomeData } from './lane-data.js';
import { HOME_JOBS, type HomeJob, homeView } from './view.js';

export type HomeDeps = Pick<
  Deps,
  'store' | 'slack' | 'log' | 'projects' | 'quota' | 'now' | 'connection' | 'workspace' | 'config'
>;
type QueueingDeps = HomeDeps & Pick<Deps, 'lanes'>;

/** One waiting publish per person: a burst of job changes costs one `views.publish`, built when it runs. */
export const homeId = ({ workspace, userId }: HomeData) =>
  `home/${workspace.teamId ? `${encodeURIComponent(workspace.teamId)}/` : ''}${encodeURIComponent(userId)}`;

/** Hands a person's Home to the `homes` lane, which publishes it until it lands (see `republish.ts`). */
async function queueHome(deps: Pick<Deps, 'lanes' | 'workspace'>, userId: string): Promise<void> {
  const data = { workspace: deps.workspace, userId };
  await deps.lanes.homes.add(data, { id: homeId(data) });
}

/** Remembers the tab the person opened last (Home is republished only while it is theirs), and publishes Home. */
export async function tabOpened(deps: QueueingDeps, { userId, tab }: TabOpened): Promise<void> {
  await deps.store.kv
    .set(keys.homeTab(userId), tab, RECORD_TTL_MS)
    .catch((error) => deps.log.warn('store.unavailable', { op: 'home.tab', error }));
  if (tab !== 'home') return;
  // Not published now (a 429, a 5xx, the store not answering): the `homes` lane publishes it until it lands. When the
  // lane cannot take it either, the next opening (or job change) publishes it.
  await publishHome(deps, userId).catch(async (error) => {
    const failure = publishFailure(error);
    if (failure.kind === 'final') {
      return deps.log.warn('slack.views_publish_failed', { op: 'home', slack_error: failure.code });
    }
    await queueHome(deps, userId).catch(() => deps.log.warn('store.unavailable', { op: 'home.publish', error }));
  });
}

const SLACK_ERRORS: ReadonlySet<unknown> = new Set(Object.values(ErrorCode));

/** Why Home was not published: Slack's answer to `views.publish`, else the store's failure to read it (transient). */
export function publishFailure(error: unknown): SlackFailure {
  if (SLACK_ERRORS.has((error as { code?: unknown } | undefined)?.code)) return classifySlackError(error);
  return { kind: 'transient', code: 'store_unavailable' };
}

/** A job changed state: its owner's Home follows (through the `homes` lane), while Home is their last tab. */
export async function jobChanged(deps: QueueingDeps, record: JobRecord): Promise<void> {
  if ((await deps.store.kv.get<string>(keys.homeTab(record.userId))) === 'home') {
    await queueHome(deps, record.userId);
  }
}

/** App Home's job watcher, told with the deps of the job's workspace (its Slack client and store, not the app's). */
export const homeFollowsJob: JobWatcher = (record, deps) => jobChanged(deps, record);

/**
 * Builds and publishes `userId`'s Home tab from the store; only records that person started are shown. Slack's
 * refusal is thrown: the caller decides whether it is tried again.
 */
export async function publishHome(deps: HomeDeps, userId: string): Promise<void> {
  const refs = await deps.store.jobs.forUser(userId, HOME_JOBS);
  // the store guard counts the failure; a job not read is left out of Home, which says so.
  const read = await Promise.allSettled(refs.map((ref) => deps.store.jobs.get(ref)));
  const unread = read.filter((result) => result.status === 'rejected').length;
  const records = read.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
  const jobs: HomeJob[] = await Promise.all(
    records
      .filter((record): record is JobRecord => record?.userId === userId)
      .map(async (record) => ({ record, threadLink: await permalink(deps, record.channel, record.statusTs) })),
  );
  const quotas = await Promise.all(
    deps.projects.all.map(async (project) => ({
      project,
      create: await deps.quota.usage(project, 'create'),
      followUp: await deps.quota.usage(project, 'follow_up'),
      feedback: await weekFeedback(deps, project).catch(() => undefined),
    })),
  );
  // Serving many workspaces, Home starts with the workspace's Mintlify connection (and its buttons, for admins).
  const connection =
    deps.connection && connectionSection(deps.connection, await mayManage(deps, userId), !!deps.workspace.enterpriseId);
  const { followUps } = deps.config;
  const options = { now: deps.now(), followUps, origin: projectOrigin(deps.config), top: connection, unread };
  const view = homeView(jobs, quotas, options);
  await deps.slack.views.publish({ user_id: userId, view });
}

/** A message's permalink, cached (it never changes); `undefined` when Slack will not give one. */
async function permalink(deps: HomeDeps, channel: string, ts: string): Promise<string | undefined> {
  const key = keys.permalink(channel, ts);
  // the store guard counts the failure; the permalink is asked of Slack instead.
  const cached = await deps.store.kv.get<string>(key).catch(() => undefined);
  if (cached) return cached;
  try {
    const link = (await deps.slack.chat.getPermalink({ channel, message_ts: ts })).permalink;
    // the store guard counts the failure; uncached, it is asked again next time.
    if (link) await deps.store.kv.set(key, link, RECORD_TTL_MS).catch(() => {});
    return link;
  } catch {
    return undefined;
  }
}
