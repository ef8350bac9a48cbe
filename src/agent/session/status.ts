import type { Deps, JobWatcher } from '../../deps.js';
import { classifySlackError } from '../../slack/errors.js';
import { plainLabel } from '../../slack/mrkdwn.js';
import { type JobRecord, RECORD_TTL_MS, shownEnd } from '../../store/jobs.js';
import { keys } from '../../store/keys.js';
import { trackingIds } from '../tracking/track.js';

// Every job's thread carries Slack's agent session (docs.slack.dev/ai/agent-sessions): `processing` while the agent
// works (Slack shows its Stop button then), titled with the job's instruction, and `active` or `closed` when the round
// ends. Setting it is a courtesy to the person: a refusal is logged and counted
// (`slack_api_errors_total{method="agents.sessions.setStatus"}`), never thrown into tracking.

/** The statuses the app sets (Slack also has `suspended`: waiting on the person, which a job never does). */
export type SessionStatus = 'processing' | 'active' | 'closed';

/** A session's title: "max 200 characters" (agents.sessions.setStatus, .rename). */
const TITLE_MAX_CHARS = 200;
/** How long a workspace whose app has no sessions is not asked again (a changed manifest is seen within it). */
const SESSIONS_OFF_MS = 60 * 60_000;
/**
 * Refusals that say the app has no sessions at all here, rather than that this thread has a problem: the workspace
 * has no agent sessions (`feature_disabled`, agents.sessions.setStatus), the app is not an agent (`not_agent_app`).
 */
const NO_SESSIONS: ReadonlySet<string> = new Set(['feature_disabled', 'not_agent_app']);
const COOLDOWN_KEY = keys.slackCooldown('agents.sessions.setStatus');

/** A thread, as a session names it. */
export interface SessionThread {
  channel: string;
  threadTs: string;
}

type SessionDeps = Pick<Deps, 'slack' | 'log' | 'store' | 'now'>;

/**
 * What became of a status: set; to try again after `retryAfterMs` (Slack's 429); refused for good; or failed for now
 * (a 5xx, a timeout: the job's next change of state tries again).
 */
export type SessionResult =
  | { kind: 'set' }
  | { kind: 'later'; retryAfterMs: number }
  | { kind: 'refused' }
  | { kind: 'failed' };

/**
 * What a job's session shows (`shownEnd`): `processing` while its round runs; once it ended, `active` while a reply in the thread
 * can still steer it (a result, a failure, a Stop, tracking that gave up), `closed` when the job is over for good
 * (archived, or gone from Mintlify).
 */
export function sessionStatusOf(record: Pick<JobRecord, 'ended' | 'unsure'>): SessionStatus {
  const ended = shownEnd(record);
  if (!ended) return 'processing';
  return ended === 'archived' || ended === 'gone' ? 'closed' : 'active';
}

/** A title from a person's instruction: one line of plain text, at most Slack's 200 characters. */
export const sessionTitle = (text: string) => plainLabel(text.replace(/\s+/g, ' ').trim(), TITLE_MAX_CHARS);

/**
 * Sets the thread's session status, creating the session (with `title` and its initiator) when it has none. A
 * workspace whose app has no sessions (an `assistant_view` app, a scope missing) is not asked again for a while, and
 * a 429 is waited out by every instance: both are remembered in the store.
 */
export async function setSessionStatus(
  deps: SessionDeps,
  thread: SessionThread,
  status: SessionStatus,
  created: { title?: string; initiator?: string } = {},
): Promise<SessionResult> {
  if (await remembered(deps, keys.agentSessionsOff())) return { kind: 'refused' };
  const coolingMs = Number(await remembered(deps, COOLDOWN_KEY)) - deps.now();
  if (coolingMs > 0) return { kind: 'later', retryAfterMs: coolingMs };
  try {
    const answer = await deps.slack.agents.sessions.setStatus({
      channel_id: thread.channel,
      thread_ts: thread.threadTs,
      status,
      ...(created.title && { title: sessionTitle(created.title) }),
      ...(created.initiator && { initiator_user_id: created.initiator }),
    });
    if (answer.warning) deps.log.warn('slack.session_warning', { status, warning: answer.warning });
    return { kind: 'set' };
  } catch (error) {
    const failure = classifySlackError(error);
    deps.log.warn('slack.session_failed', { op: 'set_status', status, slack_error: failure.code });
    if (failure.kind === 'rate_limited') {
      await remember(deps, COOLDOWN_KEY, deps.now() + failure.retryAfterMs, failure.retryAfterMs);
      return { kind: 'later', retryAfterMs: failure.retryAfterMs };
    }
    if (failure.kind === 'misconfigured' || NO_SESSIONS.has(failure.code)) {
      await remember(deps, keys.agentSessionsOff(), failure.code, SESSIONS_OFF_MS);
    }
    return failure.kind === 'transient' ? { kind: 'failed' } : { kind: 'refused' };
  }
}

/**
 * A session's Stop the app cannot act on (no job to stop, or the job's project no longer served): the session still
 * leaves `processing`, which Slack leaves to the app, so its spinner and Stop button do not stay.
 */
export async function leaveProcessing(deps: SessionDeps, thread: SessionThread): Promise<void> {
  await setSessionStatus(deps, thread, 'active');
}

/** A follow-up gave the job a new instruction: the session's title says what the agent works on now. */
export async function renameSession(deps: SessionDeps, thread: SessionThread, instruction: string): Promise<void> {
  if (await remembered(deps, keys.agentSessionsOff())) return;
  await deps.slack.agents.sessions
    .rename({ channel_id: thread.channel, thread_ts: thread.threadTs, title: sessionTitle(instruction) })
    .catch((error: unknown) =>
      deps.log.warn('slack.session_failed', { op: 'rename', slack_error: classifySlackError(error).code }),
    );
}

/**
 * Brings the session of a job's thread in line with its record, once per round and status: the job watcher called
 * on every change of a job's state (`jobWatchers`), and by Stop. The store's mark only saves repeated calls: when it
 * cannot be read, the status is set again. A status Slack asks to wait for is set by the job's next root refresh.
 */
export async function followJob(deps: SessionDeps & Pick<Deps, 'lanes' | 'workspace'>, record: JobRecord) {
  const status = sessionStatusOf(record);
  const mark = `${record.round}:${status}`;
  const key = keys.agentSession(record);
  if ((await remembered(deps, key)) === mark) return;
  const thread = { channel: record.channel, threadTs: record.threadTs };
  const result = await setSessionStatus(deps, thread, status, { title: record.prompt, initiator: record.userId });
  if (result.kind === 'failed') return;
  if (result.kind !== 'later') return remember(deps, key, mark, RECORD_TTL_MS);
  const job = { workspace: deps.workspace, project: record.project, jobId: record.jobId };
  const delayMs = Math.max(result.retryAfterMs, 1_000);
  await deps.lanes.refreshes
    .add({ ...job, stateChanged: true }, { id: trackingIds.refresh(job), delayMs })
    .catch((error: unknown) => deps.log.warn('queue.unavailable', { op: 'agent.session_later', error }));
}

/** The job watcher: each job's session follows its state. */
export const sessionFollowsJob: JobWatcher = (record, deps) => followJob(deps, record);

/** A value the store keeps; `undefined` when it cannot say (the store is a help here, not a must). */
const remembered = (deps: Pick<Deps, 'store'>, key: string) => deps.store.kv.get(key).catch(() => undefined);

async function remember(deps: Pick<Deps, 'store' | 'log'>, key: string, value: unknown, ttlMs: number) {
  await deps.store.kv
    .set(key, value, ttlMs)
    .catch((error: unknown) => deps.log.warn('store.degraded', { op: 'agent.session_mark', error }));
}
