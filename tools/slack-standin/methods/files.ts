import { fileObject } from '../files.js';
import type { UploadedFile } from '../tenant.js';
import { type Answer, type Handler, type MethodCall, missing, ok, refuse } from './answer.js';
import { postRefusal } from './chat.js';

const MAX_ALT_TXT = 1_000;

/** Step 1 of `files.uploadV2`: a file id and where to send the bytes. */
function getUploadUrl({ args, tenant, slack }: MethodCall): Answer {
  // `filename` and `length` are required; "missing_argument: … Typically only occurs when the length provided is 0".
  const absent = ['filename', 'length'].filter((k) => args[k] === undefined || args[k] === '');
  if (absent.length) return missing(...absent);
  if (Number(args.length) === 0) return refuse('missing_argument');
  // Slack documents `alt_txt` (at most 1,000 characters) and ignores arguments it does not know, `alt_text` among them.
  const altText = typeof args.alt_txt === 'string' ? args.alt_txt : undefined;
  if (altText && altText.length > MAX_ALT_TXT) return refuse('alt_txt_too_large');
  const file: UploadedFile = {
    id: `F${slack.nextId()}`,
    name: String(args.filename),
    content: '',
    user: tenant.workspace.botUserId,
    mode: 'hosted',
    ...(altText && { altText }),
  };
  tenant.files.push(file);
  return ok({ upload_url: `${slack.url}/upload/${file.id}`, file_id: file.id });
}

/** Step 3: titles the uploaded files and, given a channel, shares them in a message from the bot. */
function completeUpload({ args, tenant, slack }: MethodCall): Answer {
  const wanted = (args.files as { id: string; title?: string }[] | undefined) ?? [];
  const files = wanted.map((w) => ({ w, file: tenant.files.find((f) => f.id === w.id) }));
  if (files.length === 0 || files.some(({ file }) => !file)) return refuse('file_not_found');
  // Slack lists `not_in_channel` and `channel_not_found` here; an archived channel (no code documented here) is refused
  // as a post there is.
  const refused = typeof args.channel_id === 'string' ? postRefusal(tenant, args.channel_id) : undefined;
  if (refused) return refused;
  const shared = files.map(({ w, file }) => {
    const f = file as UploadedFile;
    f.title = w.title ?? f.name;
    if (typeof args.channel_id === 'string') f.channel = args.channel_id;
    return fileObject(slack, tenant, f);
  });
  if (typeof args.channel_id === 'string') {
    tenant.messages.push({
      channel: args.channel_id,
      ts: slack.nextTs(),
      user: tenant.workspace.botUserId,
      bot_id: tenant.workspace.botId,
      files: shared,
      ...(typeof args.initial_comment === 'string' && { text: args.initial_comment }),
      ...(typeof args.thread_ts === 'string' && { thread_ts: args.thread_ts }),
    });
  }
  return ok({ files: shared.map(({ id, title, name }) => ({ id, title, name })) });
}

function info({ args, tenant, slack }: MethodCall): Answer {
  const file = tenant.files.find((f) => f.id === args.file);
  if (!file) return refuse('file_not_found');
  return ok({ file: fileObject(slack, tenant, file), comments: [], response_metadata: { next_cursor: '' } });
}

export const fileMethods: Record<string, Handler> = {
  'files.getUploadURLExternal': getUploadUrl,
  'files.completeUploadExternal': completeUpload,
  'files.info': info,
};
