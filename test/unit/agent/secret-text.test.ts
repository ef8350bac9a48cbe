import { describe, expect, it } from 'vitest';
import { holdsSecret, maskSecrets } from '../../../src/agent/secret-text.js';

describe('a key or token in what a person types', () => {
  it.each([
    'use mint_live.4f1c2d9e~8b7a+Qx/y_z-9= for the examples',
    'the bot token is xoxb-2004-7723-Kq9sYc4Jm2Lp8Zx0',
    'refresh with xoxe-1-My0xLTQ3NjM1NzY',
    'socket token xapp-1-A0123456789-9876',
  ])('finds %j', (text) => expect(holdsSecret(text)).toBe(true));

  it.each([
    'Explain that admin keys start with mint_',
    'keys look like mint_abc123',
    'tokens start with xoxb-',
    'Document the mint_api_key_rotation setting',
    'The peppermint_flavour_2024_edition page',
  ])('leaves %j alone: a word, not a key', (text) => expect(holdsSecret(text)).toBe(false));

  it('masks each to its kind', () => {
    expect(maskSecrets('a mint_live4f1c2d9e8b7aQxyz and xoxb-2004-7723-Kq9sYc4Jm2Lp8Zx0.')).toBe(
      'a mint_… and xoxb-….',
    );
  });
});
