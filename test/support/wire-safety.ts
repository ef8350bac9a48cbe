import type { SlackCall } from '../../tools/slack-standin/index.js';

/**
 * What the app sends for people to read: messages, updates, ephemerals, streamed messages, response_url bodies, views,
 * file comments.
 */
const READ_BY_PEOPLE =
  /^(chat\.(postMessage|update|postEphemeral|startStream|appendStream|stopStream)|response_url:.*|views\.\w+|files\.completeUploadExternal)$/;
/** Strings shown as written: text, a stream's Markdown (`markdown_text`), a streamed task's `title` and `details`. */
const TEXT_KEYS = new Set(['text', 'initial_comment', 'alt_text', 'markdown_text', 'title', 'details']);

/**
 * Markup the app writes on purpose: a person (`<@U…>`), a channel (`<#C…>`), an https link (`<https://…|label>`), a
 * time on each reader's clock (`<!date^1700000000^{time}|10:01 UTC>`, its fallback after the bar).
 */
const OWN_MARKUP =
  /^<(@[UW][A-Z0-9]+|#C[A-Z0-9]+(\|[^<>]*)?|https:\/\/[^\s<>|]+(\|[^<>]*)?|!date\^\d+\^[^<>|^]+\|[^<>]+)>$/;

/** Every problem in one text: a raw broadcast, markup the app did not mean to write, or text escaped twice. */
export function wireProblems(text: string): string[] {
  const problems: string[] = [];
  for (const [markup] of text.matchAll(/<[^<>]*>/g)) {
    if (/^<!(channel|here|everyone|subteam\^)/.test(markup)) problems.push(`raw broadcast ${markup}`);
    else if (!OWN_MARKUP.test(markup)) problems.push(`unescaped ${markup}`);
  }
  for (const [twice] of text.matchAll(/&amp;(lt|gt|amp);/g)) problems.push(`escaped twice: ${twice}`);
  return problems;
}

function texts(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) texts(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'metadata') continue; // machine-read, never shown
      if (TEXT_KEYS.has(key) && typeof inner === 'string') out.push(inner);
      else texts(inner, out);
    }
  }
  return out;
}

/** The problems in every body people read among `calls`, each with the method it went to. */
export function unsafeBodies(calls: readonly SlackCall[]): string[] {
  return calls
    .filter((call) => READ_BY_PEOPLE.test(call.method))
    .flatMap((call) => texts(call.args).flatMap((text) => wireProblems(text).map((p) => `${call.method}: ${p}`)));
}

/** Every stand-in a test file started: walked once the file's tests are done (see wire-safety-setup.ts). */
export const startedStandins: { calls: readonly SlackCall[] }[] = [];

/** The bodies of the app's answers to signed requests (acks with a reply), recorded by test/fakes/signed-request.ts. */
export const ackBodies: SlackCall[] = [];
