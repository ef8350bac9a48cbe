import { describe, expect, it } from 'vitest';
import { createMemoryClaims, oncePerBurst, REPEATED } from '../../src/store/claims.js';
import { createStore } from '../../src/store/store.js';
import { captureLogs } from '../support/logs.js';
import { storeContract } from './store-contract.js';

describe('memory store', () => {
  storeContract({ create: (namespace) => createStore({ namespace, log: captureLogs().log }) });

  it('is used without REDIS_URL, and warns that bindings vanish on restart', async () => {
    const captured = captureLogs();
    const store = await createStore({ redisUrl: undefined, log: captured.log });
    try {
      expect(store.kind).toBe('memory');
      expect(captured.lines).toHaveLength(1);
      expect(JSON.parse(captured.lines[0] ?? '{}')).toMatchObject({
        level: 'warn',
        event: 'store.memory',
        message: expect.stringContaining('REDIS_URL'),
      });
    } finally {
      await store.close();
    }
  });

  it('treats an empty REDIS_URL as none', async () => {
    const store = await createStore({ redisUrl: '', log: captureLogs().log });
    expect(store.kind).toBe('memory');
    await store.close();
  });
});

describe('memory claims', () => {
  it('sweeps expired claims out of memory, so a stream of short claims cannot grow it', async () => {
    const claims = createMemoryClaims(20);
    try {
      for (let i = 0; i < 10_000; i++) await claims.claim(`event:${i}`, 'owner', 10);
      expect(claims.size).toBe(10_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(claims.size).toBe(0);
      expect(await claims.claim('event:1', 'owner', 10_000)).toBe(true);
    } finally {
      claims.close();
    }
  });
});

describe('oncePerBurst', () => {
  it('runs a burst once while the first runs or after it succeeded, and lets go at once when it failed', async () => {
    const claims = createMemoryClaims();
    const holder = { claims, owner: 'web-1' };
    const ran: string[] = [];
    const work = (ok: boolean) => async () => {
      ran.push(String(ok));
      return ok ? ({ ok: true } as const) : ({ ok: false, reason: 'post_failed' } as const);
    };
    try {
      expect(await oncePerBurst(holder, 'a', 60_000, work(false))).toEqual({ ok: false, reason: 'post_failed' });
      expect(await oncePerBurst(holder, 'a', 60_000, work(true))).toEqual({ ok: true });
      expect(await oncePerBurst(holder, 'a', 60_000, work(true))).toBe(REPEATED);
      expect(await oncePerBurst({ claims, owner: 'web-2' }, 'a', 60_000, work(true))).toBe(REPEATED);
      expect(ran).toEqual(['false', 'true']);
    } finally {
      claims.close();
    }
  });
});
