import { z } from 'zod';

// What a message in a thread says, for the agent's context: its `text`, or, when it has none, the words of what an app
// posted instead. Alerting and CI integrations often post legacy attachments or Block Kit alone, with an empty `text`
// (docs.slack.dev: "Legacy secondary message attachments", the Block Kit reference); the alert is what the thread
// is about. Everything here is Slack wire text (escaped, links as `<url|label>`), decoded by the caller.

const words = z.string().optional().catch(undefined);
const TextObject = z.looseObject({ text: words }).optional().catch(undefined);
const Attachment = z.looseObject({
  fallback: words,
  pretext: words,
  title: words,
  title_link: words,
  text: words,
  fields: z
    .array(z.looseObject({ title: words, value: words }))
    .optional()
    .catch(undefined),
});
const Block = z.looseObject({
  type: words,
  text: z.union([z.string(), TextObject]).optional().catch(undefined),
  fields: z.array(TextObject).optional().catch(undefined),
  elements: z.array(z.unknown()).optional().catch(undefined),
});
const Posted = z.looseObject({
  text: words,
  attachments: z.array(Attachment.catch({})).optional().catch(undefined),
  blocks: z.array(Block.catch({})).optional().catch(undefined),
});

/** The message's words as Slack wire text: its `text`, else its attachments' and blocks', one part a line. */
export function postedWords(message: unknown): string {
  const { text, attachments = [], blocks = [] } = Posted.parse(message ?? {});
  if (text?.trim()) return text;
  return lines([...blocks.map(blockWords), ...attachments.map(attachmentWords)]);
}

const lines = (parts: readonly (string | undefined)[]) => parts.filter((part) => part?.trim()).join('\n');

/** An attachment's pretext, linked title, text and fields; its fallback when it has none of them. */
function attachmentWords(a: z.infer<typeof Attachment>): string {
  const title = a.title && a.title_link ? `<${a.title_link}|${a.title}>` : a.title;
  const fields = (a.fields ?? []).map((f) =>
    lines([f.title && f.value ? `${f.title}: ${f.value}` : f.title || f.value]),
  );
  return lines([a.pretext, title, a.text, ...fields]) || (a.fallback ?? '');
}

/** A block's words: a header's, a section's text and fields, a context's texts, a markdown block's, rich text's. */
function blockWords(block: z.infer<typeof Block>): string {
  const text = typeof block.text === 'string' ? block.text : block.text?.text;
  switch (block.type) {
    case 'header':
    case 'markdown':
      return text ?? '';
    case 'section':
      return lines([text, ...(block.fields ?? []).map((f) => f?.text)]);
    case 'context':
      return (block.elements ?? [])
        .map((e) => TextObject.parse(e)?.text)
        .filter(Boolean)
        .join(' ');
    case 'rich_text':
      return richText(block.elements ?? []);
    default:
      return '';
  }
}

const RichElement = z.looseObject({ type: words, text: words, url: words, elements: z.array(z.unknown()).optional() });

/** Rich text's sections, lists and quotes, a line each; its runs of text and links as wire text. */
function richText(elements: readonly unknown[]): string {
  const run = (element: unknown): string => {
    const e = RichElement.catch({}).parse(element);
    if (e.type === 'link' && e.url) return e.text ? `<${e.url}|${e.text}>` : `<${e.url}>`;
    if (e.elements) return e.elements.map(run).join(e.type === 'rich_text_list' ? '\n' : '');
    return e.text ?? '';
  };
  return lines(elements.map(run));
}
