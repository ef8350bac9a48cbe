import { describe, expect, it } from 'vitest';
import { createSecrets, fingerprint, keyId, SecretError } from '../../../src/tenants/secrets.js';

const OLD = Buffer.alloc(32, 1);
const NEW = Buffer.alloc(32, 2);
const KEY = 'mint_live_0123456789abcd';

describe('secrets at rest', () => {
  it('seals into a versioned envelope (key id, nonce, ciphertext) that holds nothing in clear', () => {
    const envelope = createSecrets(NEW).seal(KEY, 'T1ACME');
    const [version, id, nonce, sealed] = envelope.split('.');
    expect(version).toBe('v1');
    expect(id).toBe(keyId(NEW));
    expect(Buffer.from(nonce ?? '', 'base64url')).toHaveLength(12);
    expect(Buffer.from(sealed ?? '', 'base64url').length).toBe(KEY.length + 16);
    expect(envelope).not.toContain('mint_');
    expect(envelope).not.toContain('abcd');
    expect(createSecrets(NEW).open(envelope, 'T1ACME')).toBe(KEY);
  });

  it('uses a fresh nonce each time: the same key sealed twice reads differently', () => {
    const secrets = createSecrets(NEW);
    expect(secrets.seal(KEY, 'T1ACME')).not.toBe(secrets.seal(KEY, 'T1ACME'));
  });

  it('opens what an earlier key sealed after a rotation, and says it is stale', () => {
    const before = createSecrets(OLD).seal(KEY, 'T1ACME');
    const rotated = createSecrets(NEW, [OLD]);
    expect(rotated.open(before, 'T1ACME')).toBe(KEY);
    expect(rotated.stale(before)).toBe(true);
    expect(rotated.stale(rotated.seal(KEY, 'T1ACME'))).toBe(false);
  });

  it('refuses an envelope of a key it does not have, naming the key id only', () => {
    const before = createSecrets(OLD).seal(KEY, 'T1ACME');
    let error: Error | undefined;
    try {
      createSecrets(NEW).open(before, 'T1ACME');
    } catch (e) {
      error = e as Error;
    }
    expect(error).toBeInstanceOf(SecretError);
    expect(error?.message).toContain(keyId(OLD));
    expect(error?.message).not.toContain(OLD.toString('base64'));
  });

  it.each([
    ['another workspace', (e: string) => e, 'T2GLOBEX'],
    ['a changed byte', (e: string) => `${e.slice(0, -3)}${e.at(-3) === 'A' ? 'B' : 'A'}${e.slice(-2)}`, 'T1ACME'],
    ['another version', (e: string) => e.replace(/^v1/, 'v9'), 'T1ACME'],
  ])('does not open an envelope moved to %s', (_, change, workspace) => {
    const envelope = createSecrets(NEW).seal(KEY, 'T1ACME');
    expect(() => createSecrets(NEW).open(change(envelope), workspace)).toThrow(SecretError);
  });

  // GCM checks a truncated tag as readily as a whole one: a 4-byte tag is forged in 2^32 tries, not 2^128.
  it.each([4, 8, 12, 15])('does not open an envelope whose tag was cut to %i bytes', (bytes) => {
    const envelope = createSecrets(NEW).seal('', 'T1ACME');
    const [version, id, nonce, sealed = ''] = envelope.split('.');
    const cut = Buffer.from(sealed, 'base64url').subarray(0, bytes).toString('base64url');
    expect(() => createSecrets(NEW).open([version, id, nonce, cut].join('.'), 'T1ACME')).toThrow(SecretError);
  });

  it('does not open an envelope with a nonce of another length', () => {
    const envelope = createSecrets(NEW).seal(KEY, 'T1ACME');
    const [version, id, , sealed] = envelope.split('.');
    const nonce = Buffer.alloc(16).toString('base64url');
    expect(() => createSecrets(NEW).open([version, id, nonce, sealed].join('.'), 'T1ACME')).toThrow(SecretError);
  });

  it('shows a key as its kind and last four characters', () => {
    expect(fingerprint(KEY)).toBe('mint_…abcd');
  });
});
