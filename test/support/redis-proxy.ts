import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { TEST_REDIS_URL } from './redis-probe.js';

/**
 * A TCP proxy on 127.0.0.1 in front of a real Redis, for the fault suite: point the app's REDIS_URL at
 * {@link RedisProxy.url} and make the network between them misbehave, while the test's own Redis clients
 * (and every other test on the shared DB) keep talking to Redis directly.
 */
export interface RedisProxy {
  /** The target's URL (same database index, same credentials) with the proxy's host and port. */
  readonly url: string;
  /**
   * A network blackhole or a failover hang: every byte, both ways, is held on open connections and on new ones
   * (still accepted), and no connection is closed; clients wait until {@link resume}.
   */
  pause(): void;
  /** Forwards what was held, in order, and accepts connections again after {@link pause} or {@link refuse}. */
  resume(): Promise<void>;
  /** Resets every open connection (TCP RST), as a broken path or a restarted server; held bytes are lost. */
  dropConnections(): void;
  /** Stops listening: new connections are refused (ECONNREFUSED); open ones are left as they are. */
  refuse(): void;
  /**
   * Redis dropping just as one kind of command is sent: while set, a connection that sends bytes containing `text`
   * (a key, a scheduler's id) is reset and those bytes are lost, so that command fails and is never run; other
   * connections, and other commands, go on. `undefined` stops it.
   */
  dropCommandsWith(text: string | undefined): void;
  /**
   * Redis slow to answer one kind of command: while set, bytes a client sends containing `text` reach Redis `ms`
   * later, and that connection's later bytes after them (Redis answers a connection in order). `undefined` stops it.
   */
  slowCommandsWith(text: string | undefined, ms?: number): void;
  /** Connections open now. */
  connectionCount(): number;
  /** Connections accepted since the start. */
  acceptedCount(): number;
  /** Resets every connection and stops listening. Idempotent. */
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  held: { to: Socket; chunk: Buffer }[];
  /** Bytes to Redis held back by {@link RedisProxy.slowCommandsWith}, sent in order. */
  slowed: number;
  sending: Promise<void>;
}

export async function startRedisProxy(targetUrl: string = TEST_REDIS_URL): Promise<RedisProxy> {
  const target = new URL(targetUrl);
  const upstreamAddress = { host: target.hostname, port: Number(target.port || 6379) };
  const pairs = new Set<Pair>();
  let paused = false;
  let accepted = 0;
  let server: Server | undefined;
  let port = 0;
  let closing: Promise<void> | undefined;
  let dropping: string | undefined;
  let slowing: { text: string; ms: number } | undefined;

  function onConnection(client: Socket): void {
    accepted += 1;
    const upstream = netConnect(upstreamAddress);
    const pair: Pair = { client, upstream, held: [], slowed: 0, sending: Promise.resolve() };
    pairs.add(pair);
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (to === upstream && dropping !== undefined && chunk.includes(dropping)) {
        pair.held = [];
        client.resetAndDestroy();
        upstream.destroy();
      } else if (paused) pair.held.push({ to, chunk });
      else to.write(chunk);
    };
    const toUpstream = forward(upstream);
    client.on('data', (chunk: Buffer) => {
      const delayMs = slowing && chunk.includes(slowing.text) ? slowing.ms : 0;
      if (delayMs === 0 && pair.slowed === 0) return toUpstream(chunk);
      pair.slowed++;
      pair.sending = pair.sending
        .then(() => new Promise((resolve) => setTimeout(resolve, delayMs)))
        .then(() => {
          pair.slowed--;
          if (!upstream.destroyed) toUpstream(chunk);
        });
    });
    upstream.on('data', forward(client));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', () => {}); // a reset seen by either side just ends the pair
      socket.on('close', end);
    }
  }

  async function listen(): Promise<void> {
    const next = createServer(onConnection);
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        next.off('error', reject);
        resolve();
      });
    });
    port = (next.address() as { port: number }).port;
    server = next;
  }

  /** Closes the listening socket now; the server's close callback would wait for open connections. */
  function stopListening(): void {
    server?.close();
    server = undefined;
  }

  await listen();
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    url: url.toString(),
    pause: () => {
      paused = true;
    },
    resume: async () => {
      if (closing) return;
      paused = false;
      for (const pair of pairs) {
        for (const { to, chunk } of pair.held.splice(0)) to.write(chunk);
      }
      if (!server) await listen();
    },
    dropConnections: () => {
      for (const pair of [...pairs]) {
        pair.held = [];
        pair.client.resetAndDestroy();
        pair.upstream.destroy();
      }
    },
    refuse: stopListening,
    dropCommandsWith: (text) => {
      dropping = text;
    },
    slowCommandsWith: (text, ms = 1_000) => {
      slowing = text === undefined ? undefined : { text, ms };
    },
    connectionCount: () => pairs.size,
    acceptedCount: () => accepted,
    close: () => {
      closing ??= (async () => {
        stopListening();
        for (const pair of [...pairs]) {
          pair.client.resetAndDestroy();
          pair.upstream.destroy();
        }
      })();
      return closing;
    },
  };
}
