import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request passing through a tap, its body as text. */
export interface TappedRequest {
  method: string;
  path: string;
  body: string;
  at: number;
}

/**
 * What a test does to a request: `before` runs before it is forwarded, `after` once the neighbour has answered and
 * before the answer is relayed. Either may return `'drop'`: the connection is destroyed, nothing more is relayed.
 */
export interface TapHooks {
  before?(request: TappedRequest): Promise<'drop' | undefined> | 'drop' | undefined;
  after?(request: TappedRequest): Promise<'drop' | undefined> | 'drop' | undefined;
}

export interface HttpTap {
  /** `url` (of the neighbour) with the tap's origin instead: what the tapped process is configured with. */
  url(url: string): string;
  /** Every request that came through, in order. */
  readonly requests: TappedRequest[];
  hooks: TapHooks;
  close(): Promise<void>;
}

/**
 * A forwarding proxy on 127.0.0.1 in front of one neighbour (the Slack stand-in, the simulator), one per process
 * under test: the test then knows which process made a call, and can hold or cut that call (kill the process
 * mid-request) without the neighbour knowing anything about processes.
 */
export async function startHttpTap(target: string): Promise<HttpTap> {
  const origin = new URL(target).origin;
  const tap: HttpTap = {
    url: (url) => new URL(new URL(url).pathname + new URL(url).search, base).href,
    requests: [],
    hooks: {},
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    forward(tap, origin, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return tap;
}

async function forward(tap: HttpTap, origin: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const request = { method: req.method ?? 'GET', path: req.url ?? '/', body: body.toString('utf8'), at: Date.now() };
  tap.requests.push(request);
  if ((await tap.hooks.before?.(request)) === 'drop') return void res.destroy();
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
  ) as Record<string, string>;
  const answer = await fetch(`${origin}${request.path}`, {
    method: request.method,
    headers,
    ...(body.length > 0 && { body }),
  });
  const answered = Buffer.from(await answer.arrayBuffer());
  if ((await tap.hooks.after?.(request)) === 'drop') return void res.destroy();
  const relayed: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name))
      relayed[name] = value;
  });
  res.writeHead(answer.status, relayed).end(answered);
}
