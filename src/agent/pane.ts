import type { Projects } from '../config/projects.js';
import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import { plainLabel } from '../slack/mrkdwn.js';
import type { Replies } from '../slack/reply.js';
import type { TurnDeps } from './handle-turn.js';
import { type Instruction, readTurnInstruction } from './instruction.js';
import { paneCopy } from './messages.js';
import { MY_JOBS_WORDS, myJobs } from './my-jobs.js';
import { firstEvent } from './redelivery.js';
import type { PaneTurn, Turn } from './requests.js';
import { maskSecrets } from './secret-text.js';
import { isInstruction } from './steering.js';

// Slack's assistant pane (Agents & AI apps): a thread of the person's DM with the app, opened next to the channel
// they are looking at. A message there is a turn like a DM's; the pane adds where the person is (the thread
// context, for the project), a status while a job starts and the thread's title.

/** Slack's limit on a thread's title is not documented; the app history shows about this much. */
const TITLE_MAX_CHARS = 80;

type PaneDeps = TurnDeps & Pick<Deps, 'slack'>;

/** How a turn runs once the pane has done its part: the agent's router (`handleTurn`), handed in by `agent-work.ts`. */
export type RunTurn = (deps: TurnDeps, turn: Turn, instruction: Instruction) => Promise<void>;

/**
 * A turn in the pane: `my jobs` lists the person's jobs, once per event (`handleTurn` deduplicates the rest). An
 * instruction in a thread without a job titles the thread after it and shows a status until the job's first post (or
 * the answer) clears it. Then the turn runs as a DM's would, with the project of the channel the person is looking
 * at, and with private answers in the pane's thread (the pane is private).
 */
export async function runPaneTurn(deps: PaneDeps, { turn, contextChannel }: PaneTurn, runTurn: RunTurn): Promise<void> {
  const threadTs = turn.threadTs ?? turn.ts;
  const pane = paneDeps(deps, turn.channel, contextChannel, threadTs);
  if (MY_JOBS_WORDS.test(turn.text)) {
    if (!(await firstEvent(deps, turn))) return;
    const audience = { userId: turn.userId, channel: turn.channel, threadTs };
    return pane.replies.privately(audience, await myJobs(deps, turn.userId, turn.text));
  }
  // Read once: for the title here, and for the job the turn starts.
  const instruction = readTurnInstruction(pane, turn);
  // the store guard counts the failure; unknown only skips the title and status.
  const job = await deps.store.jobs.forThread(deps.projects.all, turn.channel, threadTs).catch(() => undefined);
  // Only what the router starts a job from (`routeOf`: words or a file) titles the thread: not `:tada: !!`.
  if (instruction.kind === 'start' && isInstruction(turn) && !job && turn.allowed) {
    const thread = { channel_id: turn.channel, thread_ts: threadTs };
    const title = plainLabel(maskSecrets(instruction.prompt).replace(/\s+/g, ' '), TITLE_MAX_CHARS);
    await deps.slack.assistant.threads
      .setTitle({ ...thread, title })
      .catch((error) => deps.log.warn('slack.pane_failed', { op: 'set_title', slack_error: slackErrorCode(error) }));
    await deps.slack.assistant.threads
      .setStatus({ ...thread, status: paneCopy.starting, loading_messages: paneCopy.loading })
      .catch((error) => deps.log.warn('slack.pane_failed', { op: 'set_status', slack_error: slackErrorCode(error) }));
  }
  await runTurn(pane, turn, instruction);
}

/**
 * The deps of a pane turn: the DM routed as the channel next to it, private answers in the message's thread (the
 * pane's, or on `agent_view` the thread a top-level DM message starts).
 */
function paneDeps<D extends PaneDeps>(deps: D, dm: string, contextChannel: string | undefined, threadTs: string): D {
  const { projects, replies, slack, log } = deps;
  const routed: Projects = {
    defaultProject: projects.defaultProject,
    all: projects.all,
    forChannel: (channel) => projects.forChannel(channel === dm ? (contextChannel ?? dm) : channel),
    knows: (project) => projects.knows(project),
    keyFor: (project) => projects.keyFor(project),
    former: projects.former,
    docsUrls: projects.docsUrls,
  };
  const inThread: Replies = {
    ...replies,
    async privately(to, message) {
      if (to.channel !== dm) return replies.privately(to, message);
      const thread = { channel: dm, thread_ts: to.threadTs ?? threadTs };
      await slack.chat.postMessage({ ...thread, ...message }).catch((error) => {
        log.warn('slack.reply_failed', { op: 'pane', slack_error: slackErrorCode(error) });
        return replies.privately({ ...to, threadTs: thread.thread_ts }, message);
      });
    },
  };
  return { ...deps, projects: routed, replies: inThread };
}
