import type { IncomingMessage, ServerResponse } from 'node:http';

// What goes on the wire: JSON answers, error bodies, and reading a request.

const MAX_BODY_BYTES = 1_000_000;

export function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  sendText(res, status, JSON.stringify(body), 'application/json');
}

export function sendText(res: ServerResponse, status: number, text: string, contentType: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) }).end(text);
}

/** A 429 with the documented body; `Retry-After` only when `retryAfterSec` is given. */
export function rateLimited(res: ServerResponse, retryAfterSec?: number): void {
  if (retryAfterSec !== undefined) res.setHeader('Retry-After', String(retryAfterSec));
  send(res, 429, { error: 'Rate limit exceeded' });
}

/** Parsed JSON, the raw text when it is not JSON, or undefined when empty. */
export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The body as text, or undefined when it is over the size limit. */
export async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface PathParams {
  projectId: string;
  jobId: string;
  threadId: string;
}

/** The path's parameters when `segments` match `pattern` (`:projectId`, `:jobId`, `:threadId`: any non-empty segment). */
export function matchPattern(pattern: readonly string[], segments: readonly string[]): PathParams | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: PathParams = { projectId: '', jobId: '', threadId: '' };
  for (const [index, part] of pattern.entries()) {
    const segment = segments[index] ?? '';
    const name = part.slice(1);
    if (part.startsWith(':') && isParam(name)) {
      if (segment === '') return undefined;
      params[name] = segment;
    } else if (part !== segment) {
      return undefined;
    }
  }
  return params;
}

const isParam = (name: string): name is keyof PathParams => ['projectId', 'jobId', 'threadId'].includes(name);
