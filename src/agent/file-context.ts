import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import { codePoints } from '../slack/mrkdwn.js';
import { type SharedFile, sharedFileOf } from './attached-files.js';

/** A text file is read when Slack says it is at most this big (20 KB); a bigger one is sent by link. */
export const FILE_MAX_BYTES = 20_000;
/** The most file text one message carries to the agent; files past it are sent by link, in the order shared. */
export const FILES_MAX_CHARS = 40_000;
/** How long reading one file from Slack may take. */
const DOWNLOAD_TIMEOUT_MS = 5_000;

/** Slack's `filetype`s of text: snippets, Markdown, code, data. */
const TEXT_TYPES = new Set(
  'text markdown post json yaml xml csv tsv javascript typescript python shell bash go java kotlin swift ruby rust php c cpp csharp css html sql toml diff dockerfile ini'.split(
    ' ',
  ),
);
const TEXT_MIMETYPES = /^(text\/|application\/(json|x-yaml|yaml|xml|javascript|x-sh|toml))/;

export function isTextLike(file: SharedFile): boolean {
  return file.mode === 'snippet' || TEXT_TYPES.has(file.filetype ?? '') || TEXT_MIMETYPES.test(file.mimetype ?? '');
}

/** Files for the agent: appended to the instruction, and what the status line says about them. */
export interface FileContext {
  text: string;
  note: string;
}

type FileDeps = Pick<Deps, 'slack' | 'config' | 'log'>;

/**
 * The files shared with an instruction or a follow-up, for the agent: text files (snippets, Markdown, code,
 * JSON/YAML) up to `FILE_MAX_BYTES` each are read with the bot token and included, fenced, while their total stays
 * within `FILES_MAX_CHARS`; the rest, and images, PDFs and other binaries, are named with their Slack link and a
 * note that the agent cannot open them. `undefined` when there are none.
 */
export async function readFileContext(deps: FileDeps, shared: readonly SharedFile[]): Promise<FileContext | undefined> {
  if (shared.length === 0) return undefined;
  const files = await Promise.all(shared.map((file) => (file.askInfo ? described(deps, file) : file)));
  const blocks: string[] = [];
  let used = 0;
  let included = 0;
  for (const file of files) {
    const content = isTextLike(file) && fits(file, used) ? await download(deps, file) : undefined;
    if (content !== undefined && used + codePoints(content) <= FILES_MAX_CHARS) {
      used += codePoints(content);
      included++;
      blocks.push(fenced(file, content));
    } else {
      blocks.push(linked(file, isTextLike(file) ? 'its text is not included (see the note above)' : undefined));
    }
  }
  const cap = `text files up to ${FILE_MAX_BYTES / 1000} KB each, ${FILES_MAX_CHARS.toLocaleString('en-US')} characters in all; past that, by link in the order shared`;
  const linkedCount = files.length - included;
  return {
    text: [
      `--- Files shared with this message (${cap}). Files given by link cannot be opened by you: ask in the thread if you need them. ---`,
      ...blocks,
      '--- End of files ---',
    ].join('\n'),
    note: `files: ${included} included${linkedCount ? `, ${linkedCount} by link` : ''} (${cap})`,
  };
}

/** A file Slack named only by its id, as `files.info` describes it; as it was when Slack does not say. */
async function described({ slack, log }: FileDeps, file: SharedFile): Promise<SharedFile> {
  try {
    const info = await slack.files.info({ file: file.id });
    return sharedFileOf(info.file) ?? file;
  } catch (error) {
    log.warn('slack.file_info_failed', { file: file.id, slack_error: slackErrorCode(error) });
    return file;
  }
}

const fits = (file: SharedFile, used: number) =>
  (file.size === undefined || file.size <= FILE_MAX_BYTES) && used < FILES_MAX_CHARS;

function fenced(file: SharedFile, content: string): string {
  const longest = Math.max(2, ...Array.from(content.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `[file: ${file.name}${file.permalink ? ` ${file.permalink}` : ''}]\n${fence}${file.filetype ?? ''}\n${content.trimEnd()}\n${fence}`;
}

function linked(file: SharedFile, why = 'the agent cannot open this kind of file'): string {
  const kind = file.mimetype ? `, ${file.mimetype}` : '';
  return `[file: ${file.name}${kind} ${file.permalink ?? '(no link)'}: ${why}]`;
}

/**
 * The file's text, read from `url_private` with the bot token; `undefined` when it cannot be (too big, not
 * Slack's host, no token, or a sign-in page instead of the file). The token goes only to Slack's file host (or
 * the Slack API host configured, e.g. a stand-in), never to a URL named elsewhere.
 */
async function download({ slack, config, log }: FileDeps, file: SharedFile): Promise<string | undefined> {
  if (!file.urlPrivate || !slack.token || !isSlackFileUrl(file.urlPrivate, config.slack.apiUrl)) return undefined;
  const stop = new AbortController();
  try {
    const response = await fetch(file.urlPrivate, {
      headers: { authorization: `Bearer ${slack.token}` },
      redirect: 'manual',
      signal: AbortSignal.any([stop.signal, AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS)]),
    });
    const type = response.headers.get('content-type') ?? '';
    if (response.status !== 200 || (type.startsWith('text/html') && file.filetype !== 'html')) {
      await response.body?.cancel();
      log.warn('slack.file_unreadable', { file: file.id, http_status: response.status });
      return undefined;
    }
    const bytes = await readUpTo(response.body, FILE_MAX_BYTES);
    if (!bytes) log.info('slack.file_too_big', { file: file.id, max_bytes: FILE_MAX_BYTES });
    return bytes && new TextDecoder().decode(bytes);
  } catch (error) {
    log.warn('slack.file_unreadable', { file: file.id, error });
    return undefined;
  } finally {
    stop.abort(); // whatever was not read is not downloaded
  }
}

/** The body's bytes, or `undefined` as soon as they pass `maxBytes`: the rest is never read. */
async function readUpTo(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) return undefined; // leaving the loop cancels the stream
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function isSlackFileUrl(url: string, apiUrl: string): boolean {
  try {
    const target = new URL(url);
    const api = new URL(apiUrl);
    if (target.origin === api.origin) return true;
    return api.hostname === 'slack.com' && target.protocol === 'https:' && target.hostname === 'files.slack.com';
  } catch {
    return false;
  }
}
