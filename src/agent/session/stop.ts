import { projectOrigin, servedOrFormer } from '../../config/projects.js';
import type { Deps } from '../../deps.js';
import { describeFailure } from '../../mintlify/failure.js';
import type { Audience } from '../../slack/reply.js';
import { awaitingTakeUp, type JobRecord, type JobRef } from '../../store/jobs.js';
import { jobStatus, steerVerb } from '../job-messages.js';
import { errors } from '../messages.js';
import type { StopRequest } from '../requests.js';
import { steerOf } from '../steering.js';
import { trackingIds } from '../tracking/track.js';
import { unserved } from '../unserved.js';
import { STOP_INSTRUCTION, stopCopy } from './messages.js';
import { followJob, leaveProcessing } from './status.js';

/** How many of the person's newest jobs `/agent stop` looks through for one running where they ran it. */
const RECENT_JOBS = 20;

type StopDeps = Pick<
  Deps,
  'store' | 'slack' | 'log' | 'mintlify' | 'replies' | 'projects' | 'config' | 'lanes' | 'workspace' | 'now'
>;

/**
 * Stop: the round ends as `halted` first (the store's transition, so no outcome is posted after it whatever a poll
 * sees), then the agent is sent `STOP_INSTRUCTION` (Mintlify has no cancel), the thread hears who stopped it, the
 * session leaves `processing` (Slack leaves that to the app) and the root says "Stopped".
 */
export async function runStop(deps: StopDeps, request: StopRequest): Promise<void> {
  const { userId, channel, threadTs } = request;
  const audience: Audience = {
    userId,
    channel,
    ...(threadTs && { threadTs }),
    ...(request.responseUrl && { responseUrl: request.responseUrl }),
  };
  if (!request.allowed) {
    deps.log.info('agent.refused', { user: userId, channel, door: threadTs ? 'session_stop' : 'command_stop' });
    return deps.replies.privately(audience, errors.notAllowed(undefined, request.external));
  }
  let stopped: Stopped;
  try {
    stopped = await stopRound(deps, userId, channel, threadTs);
  } catch (error) {
    // The session stays `processing`: the job may well run on, and its Stop is how to try again.
    deps.log.error('store.unavailable', { op: 'agent.stop', channel, error });
    return deps.replies.privately(audience, stopCopy.storeUnavailable(threadTs !== undefined));
  }
  switch (stopped.kind) {
    case 'none':
      // `/agent stop` names no session.
      if (threadTs) await leaveProcessing(deps, { channel, threadTs });
      return deps.replies.privately(audience, threadTs ? stopCopy.noJob() : stopCopy.nothingRunning());
    case 'ended':
      // Ended meanwhile (its result is in the thread) or stopped by someone else: the session shows that end.
      await followJob(deps, stopped.record);
      return deps.replies.privately(audience, stopCopy.alreadyEnded(stopped.record.jobId));
    case 'not_taken_up': {
      await followJob(deps, stopped.record);
      const { words } = jobStatus(stopped.record, projectOrigin(deps.config));
      return deps.replies.privately(audience, stopCopy.notTakenUp(stopped.record.jobId, words));
    }
    case 'stopped':
      return halt(deps, stopped.record, userId);
    case 'unserved': {
      // No key to send the instruction with; its next poll ends the round and says so in the thread.
      const { project, jobId } = stopped.record;
      if (threadTs) await leaveProcessing(deps, { channel, threadTs });
      deps.log.info('mintlify.not_connected', { kind: 'stop', project });
      const { gone } = unserved(projectOrigin(deps.config));
      return deps.replies.privately(audience, stopCopy.unserved(project, gone, jobId));
    }
  }
}

type Stopped = { kind: 'none' } | { kind: 'ended' | 'stopped' | 'unserved' | 'not_taken_up'; record: JobRecord };

/**
 * The job to stop, and its round ended as `halted` when it was still running (once, whoever else stops it). One whose
 * follow-up may never have reached the agent (`awaitingTakeUp`) is left as it is: as far as anyone can see the agent
 * is idle, and the instruction to stop would only start it.
 */
async function stopRound(deps: StopDeps, userId: string, channel: string, threadTs?: string): Promise<Stopped> {
  const record = threadTs ? await jobOfThread(deps, channel, threadTs) : await latestRunning(deps, userId, channel);
  if (!record) return { kind: 'none' };
  if (!deps.projects.knows(record.project)) return { kind: 'unserved', record };
  if (awaitingTakeUp(record)) return { kind: 'not_taken_up', record };
  const stopped = await deps.store.jobs.stopTracking(record, record.round, 'halted', userId);
  return { kind: stopped.ok ? 'stopped' : 'ended', record: stopped.record ?? record };
}

/**
 * The thread hears it at once, the session leaves `processing` (Slack leaves that to the app), then the agent is
 * asked to stop: a service that is slow to answer must not keep the thread waiting, and one that refuses is said.
 */
async function halt(deps: StopDeps, record: JobRecord, userId: string): Promise<void> {
  const log = deps.log.child({ project: record.project, job_id: record.jobId });
  const thread = { channel: record.channel, thread_ts: record.threadTs };
  const message = stopCopy.stopped(userId, `${steerVerb(steerOf(record, deps.config.followUps))} in this thread`);
  await deps.slack.chat
    .postMessage({ ...thread, ...message })
    .catch((error: unknown) => log.warn('slack.post_failed', { op: 'agent.stopped', error }));
  await followJob(deps, record);
  // The root's "Stopped" is a refresh's work; a queue that refuses it must not keep the agent from being told.
  const job = { workspace: deps.workspace, project: record.project, jobId: record.jobId };
  const refreshRoot = () => deps.lanes.refreshes.add({ ...job, stateChanged: true }, { id: trackingIds.refresh(job) });
  const refreshed = await refreshRoot().then(
    () => true,
    (error: unknown) => {
      log.warn('queue.unavailable', { op: 'agent.stop_refresh', error, hint: 'Tried again once the agent is told' });
      return false;
    },
  );
  const sent = await deps.mintlify.sendFollowUp(record.project, record.jobId, STOP_INSTRUCTION);
  log.info('agent.stopped', { by: userId, round: record.round, told: sent.ok });
  if (!refreshed)
    await refreshRoot().catch((error: unknown) =>
      log.error('queue.unavailable', { op: 'agent.stop_refresh', error, hint: 'The root may still say Working' }),
    );
  if (sent.ok) return;
  log.warn('mintlify.stop_refused', { error: describeFailure(sent) });
  await deps.slack.chat
    .postMessage({ ...thread, ...stopCopy.notTold() })
    .catch((error: unknown) => log.warn('slack.post_failed', { op: 'agent.stop_not_told', error }));
}

/** The job bound to this thread, among the workspace's projects and those it no longer serves. */
async function jobOfThread(deps: StopDeps, channel: string, threadTs: string): Promise<JobRecord | undefined> {
  const found = await deps.store.jobs.forThread(servedOrFormer(deps.projects), channel, threadTs);
  return found && deps.store.jobs.get(found);
}

/** The person's newest job whose round is still running in `channel` (App Home's index of their jobs). */
async function latestRunning(deps: StopDeps, userId: string, channel: string): Promise<JobRecord | undefined> {
  const refs: JobRef[] = await deps.store.jobs.forUser(userId, RECENT_JOBS);
  for (const ref of refs) {
    const record = await deps.store.jobs.get(ref);
    if (record && record.channel === channel && !record.ended) return record;
  }
  return undefined;
}
