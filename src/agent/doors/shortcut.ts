import type {
  AllMiddlewareArgs,
  MessageShortcut,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  types,
  ViewSubmitAction,
} from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { accessOf, submissionVerdict } from '../../slack/access.js';
import { decodeSlackText } from '../../slack/decode.js';
import { slackErrorCode } from '../../slack/errors.js';
import { decodeWithNames } from '../../slack/user-names.js';
import { agentTasks } from '../agent-tasks.js';
import { errors } from '../messages.js';
import { postedWords } from '../posted-words.js';
import { INSTRUCTION_BLOCK, noticeModal, parseSubmission, shortcutModal } from '../shortcut-modal.js';

/** Slack's `trigger_id` lasts 3 s: what the modal shows is fetched for at most this long, then it opens anyway. */
const PREFILL_BUDGET_MS = 1_000;

type ShortcutArgs = SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs;
type SubmissionArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * More actions → "Ask the Mintlify agent" on a message: opens the form right after the ack, outside the work
 * queue (the trigger lasts 3 s). The message's permalink and its text with people's names are fetched in
 * parallel, each within `PREFILL_BUDGET_MS` (a slow one is left out, never the form). Without the form the click
 * did nothing visible, so the person is told why, privately, where the message is.
 */
export async function messageShortcut(
  deps: Pick<Deps, 'slack' | 'store' | 'log' | 'projects' | 'replies'>,
  { shortcut, ack, context }: ShortcutArgs,
): Promise<void> {
  await ack();
  const channel = shortcut.channel.id;
  const userId = shortcut.user.id;
  const open = async (view: types.ModalView) => {
    try {
      await deps.slack.views.open({ trigger_id: shortcut.trigger_id, view });
    } catch (error) {
      const code = slackErrorCode(error);
      deps.log.warn('slack.views_open_failed', { op: 'agent.shortcut', slack_error: code });
      await deps.replies.privately(
        { userId, channel, responseUrl: shortcut.response_url },
        errors.formUnavailable(code),
      );
    }
  };
  const verdict = accessOf(context);
  if (!verdict.allowed) return open(noticeModal(errors.notAllowed(undefined, verdict.reason === 'external').text));
  // An alert another app posted as attachments or blocks alone has no text: its words are what the person means.
  const wire = postedWords(shortcut.message);
  const [permalink, text] = await Promise.all([
    within(
      deps.slack.chat.getPermalink({ channel, message_ts: shortcut.message.ts }).then((r) => r.permalink),
      PREFILL_BUDGET_MS,
    ),
    within(decodeWithNames(deps, wire), PREFILL_BUDGET_MS),
  ]);
  const threadTs = shortcut.message.thread_ts ?? shortcut.message.ts;
  const inDiscussion = threadTs !== shortcut.message.ts;
  const messageTs = shortcut.message.ts;
  const origin = {
    channel,
    threadTs,
    ...(inDiscussion && { inDiscussion }),
    ...(permalink && { permalink }),
    messageTs,
  };
  await open(
    shortcutModal({
      origin,
      text: text ?? decodeSlackText(wire),
      author: shortcut.message.user,
      projects: deps.projects.all,
      project: deps.projects.forChannel(channel),
    }),
  );
}

/**
 * The form's submission: an empty instruction (or one from a person not allowed in that channel) is a field error
 * and the form stays open with everything in it; otherwise the form closes and the job starts after the ack.
 */
export async function shortcutSubmission(
  deps: Pick<Deps, 'config' | 'projects' | 'dispatch' | 'slack' | 'log'>,
  { ack, body, view, context }: SubmissionArgs,
): Promise<void> {
  const submission = parseSubmission(view.private_metadata, view.state.values);
  if (!submission.ok) return ack({ response_action: 'errors', errors: submission.errors });
  const { origin, instruction } = submission;
  const userId = body.user.id;
  const verdict = await submissionVerdict(deps, { body, context }, origin.channel);
  if (!verdict.allowed) {
    const refusal = errors.notAllowed(undefined, verdict.reason === 'external').text;
    return ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: refusal } });
  }
  await ack();
  const chosen = submission.project;
  const project = chosen && deps.projects.knows(chosen) ? chosen : deps.projects.forChannel(origin.channel);
  await deps.dispatch(agentTasks.shortcut, { userId, origin, instruction, project });
}

/** The promise's value, or `undefined` when it fails or takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    // the form opens without what failed to arrive in time or at all (a prefill, never the form itself).
    return await Promise.race([promise.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
