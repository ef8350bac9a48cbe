import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (a workspace's Mintlify key, its Slack installation) are sealed with AES-256-GCM in a versioned
 * envelope, `v1.<key id>.<nonce>.<ciphertext and tag>` (base64url parts), so the encryption key can be rotated: the
 * key id says which key sealed it, earlier keys still open what they sealed, and `stale` says what to seal again.
 * Each envelope is bound to its workspace (GCM's additional data), so one copied into another workspace's record
 * does not open there.
 */
export interface Secrets {
  seal(plaintext: string, workspace: string): string;
  /** The plaintext, or `SecretError` when no key this process has opens it (or it was tampered with). */
  open(envelope: string, workspace: string): string;
  /** Sealed with an earlier key: seal it again with the current one. */
  stale(envelope: string): boolean;
}

export class SecretError extends Error {
  override name = 'SecretError';
  readonly code = 'secret_unreadable';
}

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A key's id: a short hash of it (never the key), the same in every process that has the key. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('mintlify-slack settings key\0').update(key).digest('base64url').slice(0, 10);
}

export function createSecrets(current: Buffer, previous: readonly Buffer[] = []): Secrets {
  const currentId = keyId(current);
  const keys = new Map([...previous.map((key) => [keyId(key), key] as const), [currentId, current] as const]);
  const aad = (workspace: string) => Buffer.from(`workspace:${workspace}`);
  return {
    seal(plaintext, workspace) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv(ALGORITHM, current, nonce).setAAD(aad(workspace));
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return [VERSION, currentId, nonce.toString('base64url'), sealed.toString('base64url')].join('.');
    },
    open(envelope, workspace) {
      const [version, id = '', nonce = '', sealed = ''] = envelope.split('.');
      if (version !== VERSION) throw new SecretError(`unknown envelope version ${String(version).slice(0, 8)}`);
      const key = keys.get(id);
      if (!key) throw new SecretError(`sealed with key ${id.slice(0, 10)}, which this process does not have`);
      const bytes = Buffer.from(sealed, 'base64url');
      const iv = Buffer.from(nonce, 'base64url');
      // GCM would check a tag cut short (down to 4 bytes) as readily: only the whole tag, and our nonce length, open.
      if (bytes.length < TAG_BYTES || iv.length !== NONCE_BYTES) throw new SecretError(`envelope of key ${id} is cut`);
      try {
        const options = { authTagLength: TAG_BYTES };
        const decipher = createDecipheriv(ALGORITHM, key, iv, options).setAAD(aad(workspace));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretError(`envelope sealed with key ${id} does not open (tampered, or another workspace's)`);
      }
    },
    stale: (envelope) => envelope.split('.')[1] !== currentId,
  };
}

/** How a Mintlify key is shown and logged: its kind and last four characters, `mint_…abcd`. */
export function fingerprint(apiKey: string): string {
  return `mint_…${apiKey.slice(-4)}`;
}
