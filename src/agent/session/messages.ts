import type { Message } from '../../slack/message.js';
import { inlineCode } from '../../slack/mrkdwn.js';
import { TASK_MAX_AGE_MINUTES, type Unavailable } from '../../task.js';

// The words of Stop: what the agent is sent, what the thread hears, and the private answers.

/**
 * Sent to the agent as a follow-up, since Mintlify has no way to cancel a job (its Admin API creates, reads and
 * messages jobs only): the agent is asked to stop, and the thread stops following it.
 */
export const STOP_INSTRUCTION =
  'Stop working on this job now: make no further changes, and do not open or update a pull request. Someone pressed Stop in Slack.';

export const stopCopy = {
  /** Said in the job's thread, for everyone: who stopped it, what that means, how to go on. */
  stopped: (userId: string, resume: string): Message => ({
    text: [
      `:octagonal_sign: Stopped by <@${userId}>. I stopped following this job, so no result will be posted here, and I am telling the agent to stop and to open no pull request.`,
      'Mintlify cannot cancel a job: changes the agent already pushed stay on its branch.',
      `${resume} to give the agent new instructions: I follow the job again from there.`,
    ].join('\n'),
  }),
  /** Mintlify did not take the instruction to stop. */
  notTold: (): Message => ({
    text: ':warning: Mintlify did not take the instruction to stop, so the agent may still finish and open a pull request, which this thread will not show: check the Mintlify dashboard.',
  }),
  /** `/agent stop` where the person has no job running. */
  nothingRunning: (): Message => ({
    text: 'You have no Mintlify agent job running in this conversation, so there is nothing to stop. `/agent stop` stops your latest job still running where you run it.',
  }),
  /** Stop on a thread whose job already ended (or was stopped meanwhile). */
  alreadyEnded: (jobId: string): Message => ({
    text: `This job (${inlineCode(jobId)}) is not running any more, so there is nothing to stop.`,
  }),
  /** Stop on a job whose project is no longer served (`gone`: `unserved`'s words): the agent cannot be told. */
  unserved: (project: string, gone: string, jobId: string): Message => ({
    text: `:electric_plug: Project ${inlineCode(project)} ${gone}, so I can’t tell the agent to stop: it may still finish and open a pull request. Check job ${inlineCode(jobId)} in the Mintlify dashboard.`,
  }),
  /** Stop on a job that still shows its last end (`words`), a follow-up of unknown fate being watched for. */
  notTakenUp: (jobId: string, words: string): Message => ({
    text: `This job (${inlineCode(jobId)}) is not running as far as I can see: it still shows its last end (${words}), and I can’t tell whether the agent got the last follow-up. If the agent takes it up in the next few minutes, I post its result in the thread, and you can stop it then.`,
  }),
  /** Stop on a thread with no job the app knows. */
  noJob: (): Message => ({ text: 'I found no Mintlify agent job in this thread, so there is nothing to stop.' }),
  /**
   * Stop pressed on a job's session, not done (see `Unavailable`): why, and to press it again (Stop stays there while
   * the job runs). A worker that is not running yet stops it when one starts.
   */
  sessionNotDone: (why: Unavailable): Message => ({
    text:
      why === 'no_worker'
        ? `:hourglass: Stopping is queued, but no worker is running to take it on: the job is stopped when one starts. If none does within ${TASK_MAX_AGE_MINUTES} minutes, nothing is done and I tell you. Let whoever runs this app know.`
        : `:warning: The job was not stopped: ${NOT_STOPPED[why]}. Press Stop on it again in a minute.`,
  }),
  /** `session`: Stop was pressed (it stays there); else `/agent stop` was run. */
  storeUnavailable: (session: boolean): Message => ({
    text: `:warning: I could not reach my job store, so the job was not stopped. ${session ? 'Press Stop again' : 'Run `/agent stop` again'} in a minute.`,
  }),
};

const NOT_STOPPED: Record<Exclude<Unavailable, 'no_worker'>, string> = {
  store: 'my storage is unavailable',
  restarting: 'the app was restarting',
  expired: `it waited over ${TASK_MAX_AGE_MINUTES} minutes for a worker`,
  failed: 'something went wrong on my side',
};
