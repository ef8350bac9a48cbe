/**
 * The one place user text is made safe for Slack mrkdwn: control characters escaped and broadcast
 * mentions (`<!channel>`, `<!here>`, `<!everyone>`, `<!subteam^…>`) neutralised, even when typed bare.
 */
export function escapeMrkdwn(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(channel|here|everyone)\b/gi, '@\u200B$1');
}

/** Shortens to `max` characters with an ellipsis, never splitting a surrogate pair. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** Quotes (possibly multi-line) user text as a mrkdwn block quote, escaped. */
export function quote(text: string, max = 500): string {
  return escapeMrkdwn(truncate(text.trim(), max))
    .split('\n')
    .map((line) => `>${line}`)
    .join('\n');
}

/** A mrkdwn link only for https URLs; anything else gives `undefined` so callers show plain text. */
export function safeLink(url: string | null | undefined, label?: string): string | undefined {
  if (!url || !isHttpsUrl(url)) return undefined;
  // Emit the URL as parsed (spaces encoded, tabs and newlines dropped), with Slack's link delimiters encoded.
  const target = new URL(url).href.replace(/[<>|]/g, (c) => encodeURIComponent(c));
  return label ? `<${target}|${escapeMrkdwn(label).replace(/\|/g, '¦')}>` : `<${target}>`;
}

export function isHttpsUrl(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}
