import type { FilesGetUploadURLExternalArguments, WebClient } from '@slack/web-api';
import { SLACK_TIMEOUT_MS } from './client.js';

export interface FileToShare {
  channel: string;
  bytes: Buffer;
  filename: string;
  title: string;
  /** What a screen reader says for an image. */
  altText: string;
  comment: string;
}

/**
 * Uploads a file and shares it in `channel` with Slack's three steps (what `filesUploadV2` does), because Slack reads
 * the image's description as `alt_txt` in files.getUploadURLExternal, and the SDK (8.2) sends it as `alt_text`,
 * which Slack ignores.
 */
export async function shareFile(slack: WebClient, file: FileToShare): Promise<void> {
  const { filename, bytes } = file;
  // The SDK's argument type names it `alt_text`; Slack's reference names it `alt_txt`.
  const args = { filename, length: bytes.length, alt_txt: file.altText };
  const target = await slack.files.getUploadURLExternal(args as FilesGetUploadURLExternalArguments);
  if (!target.upload_url || !target.file_id) throw new Error('files.getUploadURLExternal returned no upload URL');
  const uploaded = await fetch(target.upload_url, {
    method: 'POST',
    body: new Uint8Array(bytes),
    signal: AbortSignal.timeout(SLACK_TIMEOUT_MS),
  });
  // Its body is not needed, and must not outlive the call: a deadline that fires on an unread body takes the process
  // down on Node 24 (undici's abortFetch errors a stream controller it no longer has).
  await uploaded.body?.cancel();
  // Coded as the SDK's files.uploadV2 reports it (slackErrorCode), so the person hears the same words for both.
  if (!uploaded.ok)
    throw Object.assign(new Error(`file upload answered HTTP ${uploaded.status}`), { code: `http_${uploaded.status}` });
  await slack.files.completeUploadExternal({
    files: [{ id: target.file_id, title: file.title }],
    channel_id: file.channel,
    initial_comment: file.comment,
  });
}
