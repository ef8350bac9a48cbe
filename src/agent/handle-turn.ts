import type { FollowUps } from '../config/config.js';
import { projectOrigin, servedOrFormer } from '../config/projects.js';
import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import type { Audience } from '../slack/reply.js';
import { type JobBinding, type JobRef, type ThreadKind, threadKindOf } from '../store/jobs.js';
import { keys } from '../store/keys.js';
import { followUpRefusalAnswer, startRefusalAnswer, unservedAnswer } from './answers.js';
import { readFileContext } from './file-context.js';
import { type FollowUpDeps, type FollowUpResult, fateUnknown, followUp } from './follow-up.js';
import { type Instruction, readTurnInstruction } from './instruction.js';
import { readoptThread } from './job-metadata.js';
import { errors } from './messages.js';
import { claimSeen } from './redelivery.js';
import type { Turn } from './requests.js';
import { turnAttempt } from './start-attempt.js';
import { type StartJobDeps, startJob } from './start-job.js';
import { isInstruction, steers } from './steering.js';
import { readThreadContext } from './thread-context.js';
import { FOLLOW_UP_MARKS } from './tracking/outcome.js';

/** What a thread is to the bot when a message arrives in it. */
export type Place =
  /** `binding`: read back from the thread's status message, the store having lost it. */
  | { kind: 'job'; job: JobRef & { threadTs: string }; thread: ThreadKind; binding?: JobBinding }
  /** Its job is being created right now. */
  | { kind: 'starting'; thread: ThreadKind }
  /**
   * A job's of a project no longer served: disconnected in App Home or another connected (many workspaces), or taken
   * out of the configuration (one workspace).
   */
  | { kind: 'disconnected'; project: string; thread: ThreadKind }
  | { kind: 'none' }
  /** The store did not answer: whether the thread is a job's cannot be told. */
  | { kind: 'unknown' };

export type Route = 'ignore' | 'follow_up' | 'start' | 'still_starting' | 'not_connected' | 'store_unavailable';

/**
 * Decides, without I/O, what a message is to the bot: in a job's thread, a message that steers it (`steers`) is its
 * follow-up, while its job is starting is answered "still starting", and while its project is no longer served is
 * answered so; anything else there is ignored, without a reaction. Elsewhere only a message addressed to the bot (a
 * mention, a DM) starts a job, a bare mention included (it gets usage) but not one of emoji alone. Without the
 * store, only an addressed message is answered.
 */
export function routeOf(
  place: Place,
  turn: Pick<Turn, 'text' | 'addressed' | 'mentionsBot' | 'files'>,
  followUps: FollowUps = 'reply',
): Route {
  switch (place.kind) {
    case 'unknown':
      return turn.addressed ? 'store_unavailable' : 'ignore';
    case 'job':
      return steers(place.thread, turn, followUps) ? 'follow_up' : 'ignore';
    case 'starting':
      return steers(place.thread, turn, followUps) ? 'still_starting' : 'ignore';
    case 'disconnected':
      return steers(place.thread, turn, followUps) ? 'not_connected' : 'ignore';
    case 'none':
      return turn.addressed && (turn.text === '' || isInstruction(turn)) ? 'start' : 'ignore';
  }
}

export type TurnDeps = FollowUpDeps &
  Parameters<typeof startFromTurn>[0] &
  Pick<Deps, 'replies' | 'metrics' | 'instanceId' | 'projects' | 'storeLoss' | 'config'>;

/**
 * The one path of every conversational door. Each message is handled once per deployment: by `event_id` (Slack's
 * retries) and by `client_msg_id` (a mention arrives as two events), claimed in the store. `instruction`: the
 * turn's, when its door read it already (the pane).
 */
export async function handleTurn(deps: TurnDeps, turn: Turn, instruction?: Instruction): Promise<void> {
  const audience: Audience = { channel: turn.channel, userId: turn.userId, threadTs: turn.threadTs };
  const place = await placeOf(deps, turn);
  const route = routeOf(place, turn, deps.config.followUps);
  if (route === 'ignore') return;
  if (route === 'store_unavailable') return deps.replies.privately(audience, errors.storeUnavailable(turn.text));
  if (!(await firstDelivery(deps, turn, audience))) return;
  if (!turn.allowed) {
    deps.log.info('agent.refused', { user: turn.userId, channel: turn.channel, door: 'conversation' });
    return deps.replies.privately(audience, errors.notAllowed(turn.text, turn.external));
  }
  if (route === 'still_starting') return deps.replies.privately(audience, errors.jobStarting(turn.text));
  if (place.kind === 'disconnected') {
    deps.log.info('mintlify.not_connected', { kind: 'follow_up', project: place.project });
    const answer = unservedAnswer(place.project, echoOf(turn), projectOrigin(deps.config));
    return deps.replies.privately(audience, answer);
  }
  if (place.kind === 'job') return passOn(deps, turn, place, audience);
  return startFromTurn(deps, turn, audience, instruction);
}

async function placeOf(deps: TurnDeps, turn: Turn): Promise<Place> {
  if (!turn.threadTs) return { kind: 'none' };
  const { channel, threadTs } = turn;
  // A reply (not a mention or a DM, which start a job here) may be to a job of a project connected before.
  const projects = turn.addressed ? deps.projects.all : servedOrFormer(deps.projects);
  try {
    const found = await deps.store.jobs.forThread(projects, channel, threadTs);
    const record = found && (await deps.store.jobs.get(found));
    // A binding whose record just expired is treated as a joined thread: only a mention steers it.
    const thread = record ? threadKindOf(record) : 'joined';
    if (found && !deps.projects.knows(found.project)) return { kind: 'disconnected', project: found.project, thread };
    if (found) return { kind: 'job', job: { ...found, threadTs }, thread };
  } catch (error) {
    deps.log.error('store.degraded', { op: 'agent.thread_lookup', channel, error });
    return { kind: 'unknown' };
  }
  // the store guard counts the failure; unknown reads as not starting.
  const starting = await deps.store.jobs.startingIn(deps.projects.all, channel, threadTs).catch(() => undefined);
  if (starting) return { kind: 'starting', thread: starting };
  const binding = await readoptThread(deps, deps.projects.all, { channel, threadTs }).catch((error: unknown) => {
    deps.log.warn('store.readopt_failed', { channel, error });
    return undefined;
  });
  if (!binding) return { kind: 'none' };
  return {
    kind: 'job',
    job: { project: binding.project, jobId: binding.jobId, threadTs },
    thread: threadKindOf(binding),
    binding,
  };
}

/** Claims the message's event and its `client_msg_id`; false (after saying so when the store fails) when not first. */
async function firstDelivery(deps: TurnDeps, turn: Turn, audience: Audience): Promise<boolean> {
  // Keyed by the deployment's default project (bots may share a Redis), not the message's: a redelivered mention
  // finds the job it started in its thread, maybe of another project, and must still be recognised.
  const scope = deps.projects.defaultProject;
  const seen = [keys.seenEvent(scope, turn.eventId)];
  if (turn.clientMsgId) seen.push(keys.seenMessage(scope, turn.clientMsgId));
  try {
    for (const key of seen) {
      if (!(await claimSeen(deps, key, key === seen[0] ? 'event' : 'message', turn.retryNum))) return false;
    }
    return true;
  } catch (error) {
    // A first delivery cannot be told from a retry: do nothing, say so, with the text to resend.
    deps.log.error('store.degraded', { op: 'agent.dedupe', error });
    await deps.replies.react({ channel: turn.channel, ts: turn.ts }, REFUSED);
    await deps.replies.privately(audience, errors.storeUnavailable(turn.text));
    return false;
  }
}

const SEEN = 'eyes';
const REFUSED = 'x';
const { accepted, unknown } = FOLLOW_UP_MARKS;

const markOf = (result: FollowUpResult) => (result.ok ? accepted : fateUnknown(result) ? unknown : REFUSED);

/**
 * A message for a job's agent: 👀 while handing it over, then ✅, or ❌ and a private note with the text (❔ when its
 * answer was lost and the agent may have it, until its result shows the agent took it up: `tracking/deliver.ts`).
 */
async function passOn(deps: TurnDeps, turn: Turn, place: Place & { kind: 'job' }, audience: Audience) {
  const message = { channel: turn.channel, ts: turn.ts };
  await deps.replies.react(message, SEEN);
  const files = await readFileContext(deps, turn.files ?? []);
  const text = [turn.text, files?.text].filter(Boolean).join('\n\n');
  const { job, thread, binding } = place;
  const input = { ...job, ...message, userId: turn.userId, text, title: echoOf(turn), thread, binding };
  const result = await followUp(deps, input);
  await deps.replies.unreact(message, SEEN);
  await deps.replies.react(message, markOf(result));
  if (!result.ok) {
    await deps.replies.privately(audience, followUpRefusalAnswer(result.refusal, echoOf(turn), deps));
  } else if (!result.tracked) {
    await deps.replies.privately(audience, errors.followUpUntracked(echoOf(turn)));
  }
}

/** What a refusal echoes of a message: its words, or the names of the files shared without any. */
function echoOf(turn: Pick<Turn, 'text' | 'files'>): string {
  return turn.text || (turn.files ?? []).map((file) => `[file: ${file.name}]`).join('\n');
}

/**
 * A message addressed to the bot outside a job's thread: the same words as `/agent` (`help`, `projects`,
 * `--project <id> <instruction>`), and a job started in the message's thread with the thread's earlier messages as
 * context. Refusals are told privately where the person wrote. `instruction`: the turn's, when its door read it
 * already (the pane, for the thread's title).
 */
export async function startFromTurn(
  deps: StartJobDeps & Pick<Deps, 'replies' | 'config'>,
  turn: Turn,
  audience: Audience,
  instruction: Instruction = readTurnInstruction(deps, turn),
): Promise<void> {
  if (instruction.kind === 'answer') return deps.replies.privately(audience, instruction.message);
  const context = turn.threadTs
    ? await readThreadContext(deps, { ...turn, threadTs: turn.threadTs, beforeTs: turn.ts }).catch((error) => {
        // The instruction still stands on its own; the log says why the context is missing.
        deps.log.warn('slack.thread_context_unavailable', {
          channel: turn.channel,
          slack_error: slackErrorCode(error),
        });
        return undefined;
      })
    : undefined;
  const files = await readFileContext(deps, turn.files ?? []);
  const result = await startJob(deps, {
    project: instruction.project,
    userId: turn.userId,
    channel: turn.channel,
    prompt: instruction.prompt,
    threadTs: turn.threadTs ?? turn.ts,
    context,
    files,
    // A mention inside a channel's discussion joins it; a new message's thread and a DM are the bot's own.
    thread: turn.threadTs && !turn.channel.startsWith('D') ? 'joined' : 'own',
    attempt: turnAttempt(turn),
  });
  if (!result.ok) {
    await deps.replies.privately(audience, startRefusalAnswer(result.refusal, instruction.prompt, deps));
  }
}
