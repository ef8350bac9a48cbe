import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Answer } from './methods/answer.js';
import type { SlackStandin } from './server.js';
import type { Tenant, UploadedFile } from './tenant.js';

interface FileType {
  mimetype: string;
  filetype: string;
  prettyType: string;
  text: boolean;
}

const type = (mimetype: string, filetype: string, prettyType: string, text = true): FileType => ({
  mimetype,
  filetype,
  prettyType,
  text,
});

/** What Slack reports for a file by its extension (the file object reference, `filetype` and `pretty_type`). */
const TYPES: Record<string, FileType> = {
  txt: type('text/plain', 'text', 'Plain Text'),
  md: type('text/plain', 'markdown', 'Markdown (raw)'),
  json: type('application/json', 'json', 'JSON'),
  yaml: type('text/plain', 'yaml', 'YAML'),
  yml: type('text/plain', 'yaml', 'YAML'),
  csv: type('text/csv', 'csv', 'CSV'),
  js: type('text/plain', 'javascript', 'JavaScript'),
  ts: type('text/plain', 'typescript', 'TypeScript'),
  py: type('text/plain', 'python', 'Python'),
  sh: type('text/plain', 'shell', 'Shell'),
  png: type('image/png', 'png', 'PNG', false),
  jpg: type('image/jpeg', 'jpg', 'JPEG', false),
  gif: type('image/gif', 'gif', 'GIF', false),
  pdf: type('application/pdf', 'pdf', 'PDF', false),
};
const BINARY = type('application/octet-stream', 'binary', 'Binary', false);

export function fileType(name: string): FileType {
  return TYPES[name.split('.').pop()?.toLowerCase() ?? ''] ?? BINARY;
}

/** The bytes Slack serves for a file. */
export function fileBytes(file: UploadedFile): Buffer {
  return file.bytes ?? Buffer.from(file.content, 'utf8');
}

/** Where the stand-in serves a file: `url_private`, or `url_private_download` (as an attachment). */
export function privateUrl(slack: SlackStandin, tenant: Tenant, file: UploadedFile, download = false): string {
  return `${slack.url}/files-pri/${tenant.teamId}-${file.id}/${download ? 'download/' : ''}${encodeURIComponent(file.name)}`;
}

/**
 * The file object Slack puts in a `file_share` message and answers from `files.info`: type, size, mode (`snippet`
 * for text made in Slack, `hosted` for uploads), who shared it, and `url_private(_download)` on the stand-in, which
 * need the workspace's bot token (see `serveFile`).
 */
export function fileObject(slack: SlackStandin, tenant: Tenant, file: UploadedFile) {
  const kind = fileType(file.name);
  const bytes = fileBytes(file);
  const user = file.user ?? tenant.workspace.botUserId;
  const created = file.created ?? 1_700_000_000;
  const isText = file.mode === 'snippet' || (file.mode === undefined && kind.text);
  return {
    id: file.id,
    created,
    timestamp: created,
    name: file.name,
    title: file.title ?? file.name,
    mimetype: file.mimetype ?? kind.mimetype,
    filetype: file.filetype ?? kind.filetype,
    pretty_type: file.prettyType ?? kind.prettyType,
    user,
    user_team: tenant.author(user)?.teamId ?? tenant.teamId,
    editable: isText,
    size: bytes.length,
    mode: file.mode ?? (kind.text ? 'snippet' : 'hosted'),
    is_external: false,
    external_type: '',
    is_public: !!file.channel && !file.channel.startsWith('D'),
    public_url_shared: false,
    display_as_bot: false,
    username: '',
    url_private: privateUrl(slack, tenant, file),
    url_private_download: privateUrl(slack, tenant, file, true),
    permalink: `https://${tenant.workspace.teamDomain}.slack.com/files/${user}/${file.id}/${file.name}`,
    ...(isText && { preview: file.content.slice(0, 1000), lines: file.content.split('\n').length }),
    ...(file.channel && { [file.channel.startsWith('D') ? 'ims' : 'channels']: [file.channel] }),
  };
}

const PATH = /^\/files-pri\/([A-Z0-9]+)-([A-Z0-9]+)\/(download\/)?[^/]+$/;

/**
 * A request for `url_private(_download)`. With the bearer token of a bot that serves the file's workspace: the
 * bytes. Without one (no header, another workspace's token, a revoked one): no error status, as Slack does not give
 * one; a 302 to the workspace's sign-in page, which answers 200 with HTML (bolt-js#2585, vercel/eve#1531).
 */
export function serveFile(slack: SlackStandin, req: IncomingMessage, path: string): Answer {
  const [, teamId = '', fileId = '', download] = PATH.exec(path) ?? [];
  const tenant = slack.tenants.get(teamId);
  const header = req.headers.authorization;
  const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
  if (!tenant || !token || !slack.tokenServes(token, tenant)) {
    return {
      status: 302,
      headers: { location: `${slack.url}/?redir=${encodeURIComponent(path)}` },
      body: null,
      raw: '',
    };
  }
  const file = tenant.files.find((f) => f.id === fileId);
  if (!file) return { status: 404, headers: { 'content-type': 'text/html' }, body: null, raw: '<h1>Not found</h1>' };
  const headers: Record<string, string> = { 'content-type': file.mimetype ?? fileType(file.name).mimetype };
  if (download) headers['content-disposition'] = `attachment; filename="${file.name}"`;
  const raw = fileBytes(file);
  headers['content-length'] = String(raw.length);
  const served = (bytes: number) => slack.filesServed.push({ fileId, bytes, of: raw.length });
  return { status: 200, headers, body: null, raw, served };
}

/** Slack's sign-in page, where a browser (or an app without a token) lands instead of the file. */
export function signInPage(): Answer {
  return {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: null,
    raw: '<!DOCTYPE html><html lang="en-US"><head><title>Sign in | Slack</title></head><body><h1>Sign in to your workspace</h1></body></html>',
  };
}

/** How a file's bytes go out: `chunkBytes` at a time, `pauseMs` apart (a slow network), as the client reads them. */
export interface FileServing {
  chunkBytes: number;
  pauseMs: number;
}

/** Writes `raw` in chunks, waiting for the client to take each, and stops when it hangs up; resolves with the bytes sent. */
export async function writeFile(
  res: ServerResponse,
  raw: Buffer,
  { chunkBytes, pauseMs }: FileServing,
): Promise<number> {
  let sent = 0;
  while (sent < raw.length && !res.destroyed) {
    const chunk = raw.subarray(sent, sent + chunkBytes);
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    sent += chunk.length;
    if (pauseMs > 0 && sent < raw.length) await delay(pauseMs);
  }
  res.end();
  return sent;
}
