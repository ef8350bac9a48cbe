import type { ServiceFailure } from '../mintlify/failure.js';
import type { SlackFailure } from '../slack/errors.js';
import { type Message, notice } from '../slack/message.js';
import { inlineCode, plainText } from '../slack/mrkdwn.js';
import { formatRange, refusalText, slackBusyFile, UNKNOWN_PROJECT, waitWords } from '../visitors/index.js';
import type { InsightsPage, View } from './requests.js';
import { MAX_ROWS } from './rows.js';

/** Every sentence `/insights` and Draft a fix say to people. */

export const COMMAND = '/insights';

/** The command that shows this page's view again from its start, for "try again". */
export function commandOf({ view, query }: InsightsPage): string {
  const range = query.from === query.to ? query.from : `${query.from}..${query.to}`;
  const project = query.project ? ` --project ${query.project}` : '';
  return `${COMMAND}${project}${view === 'digest' ? '' : ` ${view}`} ${range}`;
}

export const insightsCopy = {
  header: {
    digest: 'Docs insights',
    feedback: 'Pages readers rate down',
    searches: 'Searches that find nothing readers click',
    questions: 'Questions the assistant could not answer',
  },
  next: 'Next →',
  csv: 'Download CSV',
  exported: 'The CSV is uploading in this conversation.',
  busy: (view: View, { from, to }: { from: string; to: string }) =>
    `A CSV export of \`${COMMAND} ${view}\` for ${formatRange(from, to)} is already running here. The file will appear in this conversation when it is ready.`,
  /** `channel`: where the CSV was to be shared. */
  uploadFailed: ({ code, retryAfterMs }: { code: string; retryAfterMs?: number }, channel: string) =>
    retryAfterMs === undefined
      ? (refusalText(code, channel) ?? `Slack refused the CSV upload (${inlineCode(code, 60)}). Please try again.`)
      : slackBusyFile(retryAfterMs),
  none: {
    feedback: 'No page was rated down in this range.',
    searches: 'Every search on this page led readers to a result they clicked.',
    questions: 'The assistant answered every question on this page.',
  },
  /** `command`: the view's own, on the digest's range and project (`commandOf`). */
  more: (command: string) => `More: \`${command}\``,
  /** Next → on a list that shrank since the page before was shown (feedback pages by offset). */
  pastTheEnd: (command: string) =>
    `No more pages: the list is shorter now than when the last page was shown. Run \`${command}\` for the first page.`,
  beyond: (pages: number) =>
    `Mintlify lists at most ${pages} rated pages for a range, and this one has more: pages beyond those are not here. A shorter range shows them.`,
  noStatus:
    "Mintlify's analytics API cannot mark feedback as in progress or resolved: a drafted fix is linked from its job's thread here, not in Mintlify.",
};

export function helpText(problem?: string, projects?: string): Message {
  const lines = [
    ...(problem ? [problem, ''] : []),
    `*${COMMAND}* shows what readers of the docs struggle with, and drafts a fix as an agent job.`,
    `• \`${COMMAND}\`: a short digest of all three`,
    `• \`${COMMAND} feedback\`: pages rated down, with readers' comments and the change on the previous period`,
    `• \`${COMMAND} searches\`: search terms readers clicked nothing (or little) for`,
    `• \`${COMMAND} questions\`: what the docs assistant could not answer`,
    `• \`${COMMAND} digest weekly [day] [HH:MM]\`: the three fixes readers need most, posted here each week (\`${COMMAND} digest off\` ends it)`,
    `Add a range as for \`/visitors\` (\`30d\`, \`last month\`, \`2026-11-01..2026-11-15\`), \`top N\` (up to ${MAX_ROWS}) or \`--project &lt;id&gt;\`.`,
    ...(projects ? ['', projects] : []),
  ];
  return notice(lines.join('\n'));
}

/** The person's own words echoed back when the command cannot be read. */
export function invalidText(text: string, problem: string, projects: string): Message {
  return helpText(`${problem}\nYou wrote: ${inlineCode(text, 200)}`, projects);
}

/** The service's own sentence, ended once (its text may end with a full stop already). */
const sentence = (text: string, max: number) => `${plainText(text, max).replace(/[\s.]+$/, '')}.`;

export function failureText(failure: ServiceFailure, command: string): Message {
  const again = `Please try again in a minute: ${inlineCode(command, 200)}`;
  switch (failure.code) {
    case 'refused': {
      const details = failure.details.slice(0, 3).map((detail) => `\n• ${plainText(detail, 300)}`);
      return notice(
        `The analytics service could not answer that: ${sentence(failure.message, 300)}${details.join('')}`,
      );
    }
    case 'unauthorized':
      return notice(
        'The analytics service refused the app’s Mintlify key. Please ask your Slack admin to check the app’s Mintlify settings.',
      );
    case 'not_connected':
      return notice(
        'Mintlify is not connected for this project in this workspace any more. An admin can connect it in my *Home* tab.',
      );
    case 'rate_limited':
      // The documents give a 429 no Retry-After: a wait the service did not name is not said as a time.
      return failure.guessed
        ? notice(`The analytics service is busy. ${again}`)
        : notice(
            `The analytics service is busy. Please try again in about ${waitWords(failure.retryAfterMs)}: ${inlineCode(command, 200)}`,
          );
    case 'not_found':
      return notice(UNKNOWN_PROJECT);
    case 'unavailable':
      return notice(`The analytics service is not answering right now. ${again}`);
  }
}

/** Who started a draft's job: `<@U…>`, or someone when the claim is too new to say. */
const starter = (userId: string) => (userId ? `<@${userId}>` : 'Someone');

/** What a Draft a fix click (or a second form's Start job) hears about a job already started for the same thing. */
export const draftCopy = {
  starting: (userId: string) =>
    `${starter(userId)} is starting a job for this right now: it appears in this channel in a moment, so I did not start a second one.`,
  /** `link`: the job's thread (`safeLink`), when Slack gave its permalink. */
  running: (userId: string, link: string | undefined) =>
    `A job for this is already running, started by ${starter(userId)}: ${link ?? 'its message is in this channel'}. Reply in its thread to add to it; I did not start a second one.`,
  ended: (link: string | undefined) =>
    `An earlier job for this has ended (${link ?? 'its message is in this channel'}): its thread has its outcome. Start another only if it did not fix this.`,
  /** Above the instruction of a form that started nothing, given back so it is not lost. */
  echoLabel: 'Your instruction, to add in its thread:',
  threadLabel: 'its thread',
  /** A form's project this workspace no longer connects (`connected`: it serves many), or the app no longer serves. */
  projectGone: (project: string, disconnected: boolean) =>
    disconnected
      ? `Project ${project} is not connected to Mintlify in this workspace any more, so I can't start this job. An admin can connect it in my Home tab; your instruction stays here.`
      : `I don't serve project ${project} any more, so I can't start this job. Your instruction stays here.`,
  storeUnavailable: 'My storage is unavailable right now, so I could not start the job. Press Start job again shortly.',
  /** Slack did not open the form (its 429 says how long to wait; the SDK's own code is never shown). */
  notOpened: (failure: SlackFailure) =>
    failure.kind === 'rate_limited'
      ? `Slack is busy right now and did not open the form. Click Draft a fix again in about ${waitWords(failure.retryAfterMs)}.`
      : `Slack did not open the form (${failure.code}), so nothing was started. Click Draft a fix again.`,
};

export const errorText = {
  forgedButton: `That button is not valid any more. Run \`${COMMAND}\` again for a fresh list.`,
  taskFailed: `Something went wrong on my side. Please try \`${COMMAND}\` again.`,
  unavailable: (command: string) =>
    notice(`I couldn't take this on right now. Please try again: ${inlineCode(command, 200)}`),
  formLost: 'This form lost track of its evidence. Close it and click Draft a fix again.',
  emptyInstruction: 'Write what the agent should do.',
};
