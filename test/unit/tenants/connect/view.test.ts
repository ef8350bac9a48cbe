import { describe, expect, it } from 'vitest';
import { notConnected } from '../../../../src/tenants/connect/messages.js';
import { connectionSection, connectModal, readForm } from '../../../../src/tenants/connect/view.js';
import { publicSettings } from '../../../../src/tenants/settings.js';
import { buttonsIn } from '../../../fixtures/slack.js';

const KEY = 'mint_acme_0123456789abcd';
const settings = publicSettings({
  projectId: 'proj_a',
  channelProjects: { C0AAA: 'proj_b' },
  apiKey: KEY,
  changedBy: 'U567OWEN',
  changedAt: Date.parse('2026-11-20T10:00:00Z'),
});

describe('App Home’s Mintlify section', () => {
  const buttons = (blocks: unknown) => buttonsIn(blocks).map((b) => b.button.text.text);

  it('offers Connect Mintlify to who may connect, and names who can to the others', () => {
    expect(buttons(connectionSection({ installerId: 'U1ANA' }, true))).toEqual(['Connect Mintlify']);
    const other = connectionSection({ installerId: 'U1ANA' }, false);
    expect(buttons(other)).toEqual([]);
    expect(JSON.stringify(other)).toContain('<@U1ANA> (who installed me) or a workspace admin or owner');
  });

  it('shows what is connected, the key only as its fingerprint and only to who may change it', () => {
    const admin = JSON.stringify(connectionSection({ installerId: 'U1ANA', settings }, true));
    expect(admin).toContain('Connected to project `proj_a` with key `mint_…abcd`');
    expect(admin).toContain('<#C0AAA> → `proj_b`');
    expect(admin).toContain('Last changed by <@U567OWEN> on 2026-11-20');
    expect(buttons(connectionSection({ installerId: 'U1ANA', settings }, true))).toEqual(['Change', 'Disconnect']);
    const member = JSON.stringify(connectionSection({ installerId: 'U1ANA', settings }, false));
    expect(member).toContain('Connected to project `proj_a`.');
    expect(member).not.toContain('mint_');
  });
});

describe('the connect modal', () => {
  it('asks for the key and the project (routes optional); when changing, fills all but the key', () => {
    const first = connectModal();
    expect(first.blocks.map((b) => [b.block_id, 'optional' in b && b.optional])).toEqual([
      ['api_key', false],
      ['project', false],
      ['routes', true],
    ]);
    const change = JSON.stringify(connectModal(settings));
    expect(change).toContain('Leave empty to keep mint_…abcd');
    expect(change).toContain('"initial_value":"proj_a"');
    expect(change).toContain('"initial_value":"C0AAA:proj_b"');
    expect(change).not.toContain(KEY);
  });

  it('reads what was typed, trimmed, leaving out what was left empty', () => {
    const values = {
      api_key: { value: { value: ` ${KEY} ` } },
      project: { value: { value: 'proj_a' } },
      routes: { value: { value: null } },
    };
    expect(readForm(values)).toEqual({ api_key: KEY, project: 'proj_a' });
  });
});

describe('the answer before Mintlify is connected', () => {
  it('names who can connect it and echoes the text, escaped, to run again', () => {
    const { text } = notConnected('U1ANA', 'Fix the <Note> & @here callout');
    expect(text).toContain('<@U1ANA> (who installed me)');
    expect(text).toContain('>Fix the &lt;Note&gt; &amp; @\u200Bhere callout');
  });

  it('says only who can connect it when there is no text', () => {
    expect(notConnected('U1ANA', ' ').text).not.toContain('Your text');
  });
});
