import type { Deps, JobWatcher } from '../../deps.js';
import { slackErrorCode } from '../../slack/errors.js';
import { plainLabel } from '../../slack/mrkdwn.js';
import { type JobRecord, RECORD_TTL_MS } from '../../store/jobs.js';
import { keys } from '../../store/keys.js';

// Every job's thread carries Slack's agent session (docs.slack.dev/ai/agent-sessions): `processing` while the agent
// works (Slack shows its Stop button then), titled with the job's instruction, and `active` or `closed` when the round
// ends. Setting it is a courtesy to the person: a refusal (an app without `agent_view` has no sessions, a missing
// scope, a 429) is logged and counted (`slack_api_errors_total{method="agents.sessions.setStatus"}`), never thrown.

/** The statuses the app sets (Slack also has `suspended`: waiting on the person, which a job never does). */
export type SessionStatus = 'processing' | 'active' | 'closed';

/** A session's title: "max 200 characters" (agents.sessions.setStatus, .rename). */
const TITLE_MAX_CHARS = 200;

/** A thread, as a session names it. */
export interface SessionThread {
  channel: string;
  threadTs: string;
}

type SessionDeps = Pick<Deps, 'slack' | 'log'>;

/**
 * What a job's session shows: `processing` while its round runs; once it ended, `active` while a reply in the thread
 * can still steer it (a result, a failure, a Stop, tracking that gave up), `closed` when the job is over for good
 * (archived, or gone from Mintlify).
 */
export function sessionStatusOf(record: Pick<JobRecord, 'ended'>): SessionStatus {
  if (!record.ended) return 'processing';
  return record.ended === 'archived' || record.ended === 'gone' ? 'closed' : 'active';
}

/** A title from a person's instruction: one line of plain text, at most Slack's 200 characters. */
export const sessionTitle = (text: string) => plainLabel(text.replace(/\s+/g, ' ').trim(), TITLE_MAX_CHARS);

/**
 * Sets the thread's session status, creating the session (with `title` and its initiator) when it has none. Returns
 * whether Slack took it; a refusal is logged, and a warning (the app not subscribed to `agent_session_stopped`) too.
 */
export async function setSessionStatus(
  deps: SessionDeps,
  thread: SessionThread,
  status: SessionStatus,
  created: { title?: string; initiator?: string } = {},
): Promise<boolean> {
  try {
    const answer = await deps.slack.agents.sessions.setStatus({
      channel_id: thread.channel,
      thread_ts: thread.threadTs,
      status,
      ...(created.title && { title: sessionTitle(created.title) }),
      ...(created.initiator && { initiator_user_id: created.initiator }),
    });
    if (answer.warning) deps.log.warn('slack.session_warning', { status, warning: answer.warning });
    return true;
  } catch (error) {
    deps.log.warn('slack.session_failed', { op: 'set_status', status, slack_error: slackErrorCode(error) });
    return false;
  }
}

/** A follow-up gave the job a new instruction: the session's title says what the agent works on now. */
export async function renameSession(deps: SessionDeps, thread: SessionThread, instruction: string): Promise<void> {
  await deps.slack.agents.sessions
    .rename({ channel_id: thread.channel, thread_ts: thread.threadTs, title: sessionTitle(instruction) })
    .catch((error: unknown) =>
      deps.log.warn('slack.session_failed', { op: 'rename', slack_error: slackErrorCode(error) }),
    );
}

/**
 * Brings the session of a job's thread in line with its record, once per round and status: the job watcher called
 * on every change of a job's state (`jobWatchers`), and by Stop. The store's mark only saves repeated calls: when it
 * cannot be read, the status is set again.
 */
export async function followJob(deps: Pick<Deps, 'slack' | 'log' | 'store'>, record: JobRecord): Promise<void> {
  const status = sessionStatusOf(record);
  const mark = `${record.round}:${status}`;
  const key = keys.agentSession(record);
  if ((await deps.store.kv.get(key).catch(() => undefined)) === mark) return;
  const thread = { channel: record.channel, threadTs: record.threadTs };
  await setSessionStatus(deps, thread, status, { title: record.prompt, initiator: record.userId });
  await deps.store.kv
    .set(key, mark, RECORD_TTL_MS)
    .catch((error: unknown) => deps.log.warn('store.degraded', { op: 'agent.session_mark', error }));
}

/** The job watcher: each job's session follows its state. */
export const sessionFollowsJob: JobWatcher = (record, deps) => followJob(deps, record);
