import type { types } from '@slack/bolt';
import { expect } from 'vitest';
import type { Message } from '../../../src/slack/message.js';
import { LIMITS } from '../../../src/visitors/blocks.js';

/** Asserts every Block Kit limit the app relies on; returns all mrkdwn/plain texts for content checks. */
export function assertBlockKitLimits(message: Message): string[] {
  const texts: string[] = [];
  expect(message.text.length).toBeGreaterThan(0);
  expect(message.text.length).toBeLessThanOrEqual(3000);
  const blocks = message.blocks ?? [];
  expect(blocks.length).toBeGreaterThan(0);
  expect(blocks.length).toBeLessThanOrEqual(LIMITS.blocks);
  for (const block of blocks as types.KnownBlock[]) {
    switch (block.type) {
      case 'header':
        expect(block.text.text.length).toBeLessThanOrEqual(LIMITS.headerText);
        texts.push(block.text.text);
        break;
      case 'section':
        if (block.text) {
          expect(block.text.text.length).toBeLessThanOrEqual(LIMITS.sectionText);
          texts.push(block.text.text);
        }
        expect(block.fields?.length ?? 0).toBeLessThanOrEqual(LIMITS.fields);
        for (const field of block.fields ?? []) {
          expect(field.text.length).toBeLessThanOrEqual(2000);
          texts.push(field.text);
        }
        expect(block.text || block.fields).toBeTruthy();
        break;
      case 'context':
        expect(block.elements.length).toBeLessThanOrEqual(LIMITS.contextElements);
        for (const element of block.elements) {
          if ('text' in element) {
            expect(element.text.length).toBeLessThanOrEqual(LIMITS.sectionText);
            texts.push(element.text);
          }
        }
        break;
      case 'actions': {
        expect(block.elements.length).toBeLessThanOrEqual(25);
        const ids = block.elements.map((e) => ('action_id' in e ? e.action_id : undefined));
        expect(new Set(ids).size).toBe(ids.length);
        for (const element of block.elements) {
          if (element.type !== 'button') continue;
          expect(element.text.text.length).toBeLessThanOrEqual(LIMITS.buttonText);
          expect(element.value?.length ?? 0).toBeLessThanOrEqual(LIMITS.buttonValue);
          expect(element.action_id?.length ?? 0).toBeLessThanOrEqual(255);
        }
        break;
      }
      case 'divider':
        break;
      default:
        throw new Error(`unexpected block type ${block.type}`);
    }
  }
  return texts;
}

export function buttons(message: Message): types.Button[] {
  return (message.blocks ?? []).flatMap((b) => (b.type === 'actions' ? (b.elements as types.Button[]) : []));
}
