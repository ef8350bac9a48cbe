/**
 * The one place Slack's wire text is turned back into what the person typed, for the agent: the ingress twin of
 * `mrkdwn.ts`. Slack escapes `&`, `<` and `>` in commands and messages and writes links, people, channels and
 * broadcasts as `<…>` markup (https://api.slack.com/reference/surfaces/formatting#retrieving-messages).
 */

/** How markup that names a person reads; unknown ids stay ids. */
export type UserNames = ReadonlyMap<string, string>;

const MARKUP = /<([^<>]*)>/g;
const USER_ID = /<@([UW][A-Z0-9]+)(?:\|[^<>]*)?>/g;

/** Ids of the people the text mentions, so their names can be looked up before decoding. */
export function mentionedUsers(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(USER_ID), (m) => m[1] as string))];
}

/** No names known: made once, as every command's and message's text is decoded, some several times. */
const NO_NAMES: UserNames = new Map();

export function decodeSlackText(text: string, names: UserNames = NO_NAMES): string {
  return unescapeEntities(text.replace(MARKUP, (_, inner: string) => decodeMarkup(inner, names)));
}

function decodeMarkup(inner: string, names: UserNames): string {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : inner.slice(bar + 1);
  switch (target[0]) {
    case '@': {
      const id = target.slice(1);
      return `@${names.get(id) ?? label?.replace(/^@/, '') ?? id}`;
    }
    case '#':
      return `#${label || target.slice(1)}`;
    case '!':
      return special(target.slice(1), label);
    default:
      return link(target, label);
  }
}

/** `<!here>`, `<!channel>`, `<!everyone>`, `<!subteam^S1|@docs>`, `<!date^…|fallback>`: plain words. */
function special(command: string, label: string | undefined): string {
  if (label) return label;
  const [name = '', id] = command.split('^');
  return name === 'subteam' ? `@${id ?? 'group'}` : `@${name}`;
}

/** `<url>` → `url`; `<url|label>` → `label (url)`, or just the label when it is the URL as typed. */
function link(url: string, label: string | undefined): string {
  if (!label) return url.replace(/^mailto:/, '');
  const bare = url.replace(/^(mailto:|https?:\/\/)/, '');
  return label === url || label === bare || `${label}/` === bare ? label : `${label} (${url})`;
}

/** Slack escapes exactly these three (the ampersand last, so `&amp;lt;` stays the `&lt;` someone typed). */
function unescapeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
