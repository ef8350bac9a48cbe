import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UploadedFile } from '../slack-standin/tenant.js';

// The playground's plain HTTP: its page's files, the files the app uploaded, JSON in and out.

const PUBLIC = new URL('./public/', import.meta.url);
const ASSETS: Record<string, string> = {
  '/': 'index.html',
  '/app.js': 'app.js',
  '/style.css': 'style.css',
};
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

const FILE_TYPES: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** Serves the page's own file at `pathname`; false when there is none. */
export async function serveAsset(pathname: string, res: ServerResponse): Promise<boolean> {
  const asset = ASSETS[pathname];
  if (!asset) return false;
  const body = await readFile(new URL(asset, PUBLIC));
  res.writeHead(200, {
    'content-type': TYPES[asset.split('.').pop() ?? ''] ?? 'text/plain',
    'cache-control': 'no-store',
  });
  res.end(body);
  return true;
}

/** A file the app uploaded to the stand-in: images inline, everything else (the CSV) as a download. */
export function serveFile(files: readonly UploadedFile[], id: string, res: ServerResponse): void {
  const found = files.find((f) => f.id === id);
  if (!found) {
    json(res, 404, { error: 'No such file' });
    return;
  }
  const type = FILE_TYPES[found.name.split('.').pop()?.toLowerCase() ?? ''];
  const safeName = found.name.replace(/["\\\r\n]/g, '_');
  res.writeHead(200, {
    'content-type': type ?? 'application/octet-stream',
    'content-disposition': `${type?.startsWith('image/') ? 'inline' : 'attachment'}; filename="${safeName}"`,
  });
  res.end(found.bytes ?? found.content);
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64_000) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
