import type { Deps } from '../deps.js';
import type { Message } from '../slack/message.js';
import { defineTask, TASK_MAX_AGE_MINUTES, type Unavailable } from '../task.js';
import { errors } from './messages.js';
import {
  CommandStartSchema,
  PaneTurnSchema,
  ShortcutSubmissionSchema,
  StopRequestSchema,
  type Turn,
  TurnSchema,
} from './requests.js';
import { stopCopy } from './session/messages.js';

// What the agent's doors hand on: each task's kind, lane and data (`requests.ts`); `agent-work.ts` says what runs
// each. When the work is not done (see `Unavailable`), the person hears so where they wrote, with their text.

const answers: Record<Unavailable, (text: string) => Message> = {
  store: errors.storeUnavailable,
  restarting: errors.restarting,
  no_worker: (text) => errors.noWorker(text, TASK_MAX_AGE_MINUTES),
  expired: (text) => errors.expired(text, TASK_MAX_AGE_MINUTES),
  failed: errors.failed,
};

/** What a person hears, with their `text`, when the agent's work was not done (Draft a fix's start says it too). */
export const unavailableAnswer = (why: Unavailable, text: string): Message => answers[why](text);

const turnUnavailable = (deps: Deps, turn: Turn, why: Unavailable) =>
  deps.replies.privately(
    { userId: turn.userId, channel: turn.channel, threadTs: turn.threadTs },
    answers[why](turn.text),
  );

export const agentTasks = {
  /** `/agent <instruction>`: a job started, or the refusal said privately. */
  start: defineTask({
    kind: 'agent.start',
    lane: 'agent',
    schema: CommandStartSchema,
    unavailable: (deps, { audience, prompt }, why) => deps.replies.privately(audience, answers[why](prompt)),
  }),
  /** A mention, a DM or a thread reply: a job started, followed up, or nothing (see `handle-turn.ts`). */
  turn: defineTask({ kind: 'agent.turn', lane: 'agent', schema: TurnSchema, unavailable: turnUnavailable }),
  /** A message in the assistant pane, with the channel the person is looking at. */
  pane: defineTask({
    kind: 'agent.pane',
    lane: 'agent',
    schema: PaneTurnSchema,
    unavailable: (deps, { turn }, why) => turnUnavailable(deps, turn, why),
  }),
  /** A submitted "Ask the Mintlify agent" form: the job starts in the message's thread. */
  shortcut: defineTask({
    kind: 'agent.shortcut',
    lane: 'agent',
    schema: ShortcutSubmissionSchema,
    unavailable: (deps, { userId, origin, instruction }, why) =>
      deps.replies.privately({ userId, channel: origin.channel, threadTs: origin.threadTs }, answers[why](instruction)),
  }),
  /** Slack's Stop on a job's agent session, or `/agent stop` (`session/stop.ts`). */
  stop: defineTask({
    kind: 'agent.stop',
    lane: 'agent',
    schema: StopRequestSchema,
    unavailable: (deps, { userId, channel, threadTs, responseUrl }, why) =>
      deps.replies.privately(
        { userId, channel, threadTs, responseUrl },
        threadTs ? stopCopy.sessionNotDone(why) : answers[why]('/agent stop'),
      ),
  }),
};
