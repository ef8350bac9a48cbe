import { escapeHtml } from './html.js';
import { agentBlock } from './render-agent.js';

/**
 * Block Kit and mrkdwn → HTML for the playground page, the way Slack's client shows them. Pure functions: every
 * piece of text is HTML-escaped, and only http(s) and mailto links become links.
 */

export interface RenderNames {
  /** A user's display name for `<@U…>` mentions. */
  user?(id: string): string | undefined;
  /** A channel's name for `<#C…>` mentions. */
  channel?(id: string): string | undefined;
  /** Where a `slack_file` image can be fetched, by file id or url. */
  fileUrl?(file: { id?: string; url?: string }): string | undefined;
}

type Obj = Record<string, unknown>;

export { escapeHtml };

/** Slack escapes only `&`, `<` and `>` on the wire. */
function decodeSlackEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** The shortcodes this app and its users are likely to send; the rest stay as `:name:`. */
const EMOJI: Record<string, string> = {
  eyes: '👀',
  white_check_mark: '✅',
  x: '❌',
  hourglass_flowing_sand: '⏳',
  hourglass: '⌛',
  warning: '⚠️',
  tada: '🎉',
  rocket: '🚀',
  bar_chart: '📊',
  page_facing_up: '📄',
  robot_face: '🤖',
  bust_in_silhouette: '👤',
  thumbsup: '👍',
  '+1': '👍',
  no_entry_sign: '🚫',
  no_entry: '⛔',
  file_cabinet: '🗄️',
  grey_question: '❔',
  zzz: '💤',
  link: '🔗',
  mag: '🔍',
  calendar: '📅',
  inbox_tray: '📥',
  arrow_right: '➡️',
  arrow_left: '⬅️',
  chart_with_upwards_trend: '📈',
  octagonal_sign: '🛑',
  electric_plug: '🔌',
  arrows_counterclockwise: '🔄',
  thumbsdown: '👎',
  '-1': '👎',
};

export function emoji(name: string): string {
  return EMOJI[name] ?? `:${name}:`;
}

function replaceEmoji(html: string): string {
  return html.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole);
}

export function safeUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return ['http:', 'https:', 'mailto:'].includes(parsed.protocol) ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

function link(url: string, label: string): string {
  const href = safeUrl(url);
  if (!href) return escapeHtml(label);
  return `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${escapeHtml(label)}</a>`;
}

/** One `<…>` token: a link, a user or channel mention, or a special mention (`<!here>`). */
function angleToken(inner: string, names: RenderNames): string {
  const [target = '', label] = splitOnce(decodeSlackEntities(inner), '|');
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return `<span class="mention">@${escapeHtml(label ?? names.user?.(id) ?? id)}</span>`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    return `<span class="mention">#${escapeHtml(label ?? names.channel?.(id) ?? id)}</span>`;
  }
  if (target.startsWith('!')) {
    const name = target.slice(1).split('^')[0] ?? '';
    return `<span class="mention">@${escapeHtml(label ?? name)}</span>`;
  }
  return link(target, label ?? target);
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** `*bold*`, `_italic_` and `~strike~` where Slack applies them: not inside words. */
function emphasis(html: string): string {
  const rule = (mark: string) =>
    new RegExp(`(^|[^\\w${mark}])\\${mark}(?=\\S)([^${mark}\\n]*?\\S)\\${mark}(?![\\w${mark}])`, 'g');
  return html
    .replace(rule('*'), '$1<strong>$2</strong>')
    .replace(rule('_'), '$1<em>$2</em>')
    .replace(rule('~'), '$1<del>$2</del>');
}

/** One line of mrkdwn without code blocks: tokens (`code`, `<…>`) are set aside so emphasis can wrap them. */
function inline(line: string, names: RenderNames): string {
  const held: string[] = [];
  const hold = (html: string) => `\uE000${held.push(html) - 1}\uE000`;
  const withTokens = line
    .replace(/\uE000/g, '')
    .replace(/`([^`\n]+)`/g, (_m, code: string) => hold(`<code>${escapeHtml(decodeSlackEntities(code))}</code>`))
    .replace(/<([^<>\n]+)>/g, (_m, inner: string) => hold(angleToken(inner, names)));
  const html = emphasis(replaceEmoji(escapeHtml(decodeSlackEntities(withTokens))));
  return html.replace(/\uE000(\d+)\uE000/g, (_m, index: string) => held[Number(index)] ?? '');
}

/** Lines joined by `<br>`, with each run of `>` lines as one quote. */
function lines(text: string, names: RenderNames): string {
  const units: { quote: boolean; html: string[] }[] = [];
  for (const row of text.split('\n')) {
    const marker = /^(>|&gt;)\s?/.exec(row);
    const html = inline(marker ? row.slice(marker[0].length) : row, names);
    const last = units.at(-1);
    if (marker && last?.quote) last.html.push(html);
    else units.push({ quote: marker !== null, html: [html] });
  }
  return units
    .map((unit, index) => {
      if (unit.quote) return `<blockquote>${unit.html.join('<br>')}</blockquote>`;
      const next = units[index + 1];
      return unit.html.join('<br>') + (next && !next.quote ? '<br>' : '');
    })
    .join('');
}

/** mrkdwn as Slack's client renders it. `text` is wire text: `&`, `<` and `>` arrive as entities. */
export function mrkdwnToHtml(text: string, names: RenderNames = {}): string {
  return text
    .split('```')
    .map((part, index) =>
      index % 2 === 1 ? `<pre>${escapeHtml(decodeSlackEntities(part.replace(/^\n/, '')))}</pre>` : lines(part, names),
    )
    .join('');
}

/** A text object (`plain_text` or `mrkdwn`). */
export function textToHtml(text: unknown, names: RenderNames = {}): string {
  const t = text as { type?: string; text?: string; emoji?: boolean } | undefined;
  if (!t || typeof t.text !== 'string') return '';
  if (t.type === 'mrkdwn') return mrkdwnToHtml(t.text, names);
  const plain = escapeHtml(t.text).replace(/\n/g, '<br>');
  return t.emoji === false ? plain : replaceEmoji(plain);
}

function attr(name: string, value: unknown): string {
  return typeof value === 'string' ? ` ${name}="${escapeHtml(value)}"` : '';
}

/** A button; a link button is a link that still reports its click (as Slack does). */
function button(element: Obj, blockId: string | undefined): string {
  const style = element.style === 'primary' || element.style === 'danger' ? ` ${element.style}` : '';
  const data =
    attr('data-action-id', element.action_id) + attr('data-block-id', blockId) + attr('data-value', element.value);
  const label = textToHtml(element.text);
  const href = typeof element.url === 'string' ? safeUrl(element.url) : undefined;
  if (href) {
    return `<a class="btn${style}" href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer"${data}>${label}</a>`;
  }
  return `<button type="button" class="btn${style}"${data}>${label}</button>`;
}

function image(element: Obj, names: RenderNames, className: string): string {
  const file = element.slack_file as { id?: string; url?: string } | undefined;
  const src = file
    ? names.fileUrl?.(file)
    : typeof element.image_url === 'string'
      ? safeUrl(element.image_url)
      : undefined;
  const alt = typeof element.alt_text === 'string' ? element.alt_text : '';
  if (!src) return `<span class="${className} missing">${escapeHtml(alt || 'image')}</span>`;
  return `<img class="${className}" src="${escapeHtml(src)}" alt="${escapeHtml(alt)}">`;
}

function element(el: Obj, blockId: string | undefined, names: RenderNames): string {
  switch (el.type) {
    case 'button':
      return button(el, blockId);
    case 'image':
      return image(el, names, 'inline-image');
    case 'mrkdwn':
    case 'plain_text':
      return `<span>${textToHtml(el, names)}</span>`;
    default:
      return `<span class="unsupported">[${escapeHtml(String(el.type))}]</span>`;
  }
}

/** Rich text (what people type in Slack's composer). */
function richText(elements: Obj[], names: RenderNames): string {
  return elements
    .map((el) => {
      const children = (el.elements as Obj[] | undefined) ?? [];
      switch (el.type) {
        case 'rich_text_section':
          return `<div>${richSpans(children, names)}</div>`;
        case 'rich_text_quote':
          return `<blockquote>${richSpans(children, names)}</blockquote>`;
        case 'rich_text_preformatted':
          return `<pre>${richSpans(children, names)}</pre>`;
        case 'rich_text_list': {
          const tag = el.style === 'ordered' ? 'ol' : 'ul';
          return `<${tag}>${children.map((item) => `<li>${richSpans((item.elements as Obj[]) ?? [], names)}</li>`).join('')}</${tag}>`;
        }
        default:
          return '';
      }
    })
    .join('');
}

function richSpans(elements: Obj[], names: RenderNames): string {
  return elements
    .map((el) => {
      const style = (el.style ?? {}) as Record<string, boolean>;
      let html: string;
      switch (el.type) {
        case 'text':
          html = escapeHtml(String(el.text ?? '')).replace(/\n/g, '<br>');
          break;
        case 'link':
          html = link(String(el.url ?? ''), String(el.text ?? el.url ?? ''));
          break;
        case 'user':
          html = `<span class="mention">@${escapeHtml(names.user?.(String(el.user_id)) ?? String(el.user_id))}</span>`;
          break;
        case 'channel':
          html = `<span class="mention">#${escapeHtml(names.channel?.(String(el.channel_id)) ?? String(el.channel_id))}</span>`;
          break;
        case 'emoji':
          html = emoji(String(el.name));
          break;
        case 'broadcast':
          html = `<span class="mention">@${escapeHtml(String(el.range))}</span>`;
          break;
        default:
          html = '';
      }
      if (style.code) html = `<code>${html}</code>`;
      if (style.bold) html = `<strong>${html}</strong>`;
      if (style.italic) html = `<em>${html}</em>`;
      if (style.strike) html = `<del>${html}</del>`;
      return html;
    })
    .join('');
}

function block(b: Obj, names: RenderNames): string {
  const blockId = typeof b.block_id === 'string' ? b.block_id : undefined;
  switch (b.type) {
    case 'section': {
      const text = b.text ? `<div class="text">${textToHtml(b.text, names)}</div>` : '';
      const fields = Array.isArray(b.fields)
        ? `<div class="fields">${b.fields.map((f) => `<div class="field">${textToHtml(f, names)}</div>`).join('')}</div>`
        : '';
      const accessory = b.accessory
        ? `<div class="accessory">${element(b.accessory as Obj, blockId, names)}</div>`
        : '';
      return `<div class="block section"><div class="main">${text}${fields}</div>${accessory}</div>`;
    }
    case 'header':
      return `<div class="block header">${textToHtml(b.text, names)}</div>`;
    case 'divider':
      return '<hr class="block divider">';
    case 'context': {
      const parts = ((b.elements as Obj[]) ?? []).map((el) =>
        el.type === 'image' ? image(el, names, 'context-image') : `<span>${textToHtml(el, names)}</span>`,
      );
      return `<div class="block context">${parts.join('')}</div>`;
    }
    case 'actions':
      return `<div class="block actions">${((b.elements as Obj[]) ?? []).map((el) => element(el, blockId, names)).join('')}</div>`;
    case 'image': {
      const title = b.title ? `<div class="image-title">${textToHtml(b.title, names)}</div>` : '';
      return `<figure class="block image">${title}${image(b, names, 'block-image')}</figure>`;
    }
    case 'rich_text':
      return `<div class="block rich-text">${richText((b.elements as Obj[]) ?? [], names)}</div>`;
    default:
      return (
        agentBlock(b, (nested) => blocksToHtml(nested, names)) ??
        `<div class="block unsupported">[${escapeHtml(String(b.type))} block]</div>`
      );
  }
}

export function blocksToHtml(blocks: unknown, names: RenderNames = {}): string {
  if (!Array.isArray(blocks)) return '';
  return blocks.map((b) => block(b as Obj, names)).join('');
}

/** A message as Slack shows it: its blocks, or its `text` (mrkdwn) when it has none. */
export function messageToHtml(message: { text?: unknown; blocks?: unknown }, names: RenderNames = {}): string {
  if (Array.isArray(message.blocks) && message.blocks.length > 0) return blocksToHtml(message.blocks, names);
  // A plain block, in the normal flow: a section's flex row would set each run of text and each mention in a column.
  return typeof message.text === 'string' ? `<div class="block">${mrkdwnToHtml(message.text, names)}</div>` : '';
}
