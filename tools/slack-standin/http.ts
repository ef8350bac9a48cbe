import type { IncomingMessage } from 'node:http';
import { blockKitProblems, type RefusedBlocks } from './block-kit.js';
import { type Answer, type Args, ok } from './methods/answer.js';

/** Slack's answer over budget: HTTP 429, how long to wait, `ratelimited`. */
export function ratelimited(retryAfterSec: number): Answer {
  return { status: 429, headers: { 'retry-after': String(retryAfterSec) }, body: { ok: false, error: 'ratelimited' } };
}

export function responseUrl(args: Args, refused?: RefusedBlocks): Answer {
  const problems = args.blocks === undefined ? [] : blockKitProblems(args.blocks, 'message', refused);
  if (problems.length) return { status: 400, headers: {}, body: { ok: false, error: 'invalid_blocks' } };
  if (args.text === undefined && args.blocks === undefined && !args.delete_original) {
    return { status: 400, headers: {}, body: { ok: false, error: 'no_text' } };
  }
  return ok();
}

export async function uploadedContent(req: IncomingMessage, raw: Buffer): Promise<{ content: string; bytes: Buffer }> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data')) return { content: raw.toString('utf8'), bytes: raw };
  const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
  const file = [...form.values()].find((v) => typeof v !== 'string') as Blob | undefined;
  const bytes = file ? Buffer.from(await file.arrayBuffer()) : Buffer.alloc(0);
  return { content: bytes.toString('utf8'), bytes };
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * A call's arguments: the query string, then the body (JSON, or a form whose fields may hold JSON). A token in the
 * query string is ignored: Slack refuses it from apps created since February 2021 (changelog 2020-11).
 */
export function parseArgs(req: IncomingMessage, raw: Buffer, url: URL): Args {
  const args: Args = {};
  for (const [key, value] of url.searchParams) if (key !== 'token') args[key] = decodeJsonField(value);
  const text = raw.toString('utf8');
  if (req.headers['content-type']?.includes('application/json')) return { ...args, ...(text ? JSON.parse(text) : {}) };
  for (const [key, value] of new URLSearchParams(text)) args[key] = decodeJsonField(value);
  return args;
}

function decodeJsonField(value: string): unknown {
  if (!/^[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
