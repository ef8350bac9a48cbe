import { checkDataBlock, DATA_BLOCK_TYPES } from './block-kit-data.js';
import { checkPlan, checkTaskCard } from './plan-blocks.js';

/**
 * Slack's documented Block Kit limits (Block Kit reference: blocks, block elements, composition objects). The
 * stand-in refuses what Slack refuses, with Slack's `invalid_blocks` and one `[ERROR] … [json-pointer:…]` line each.
 */
export const BLOCK_KIT_LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  blockId: 255,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  actionId: 255,
  buttonValue: 2000,
  url: 3000,
  imageAltText: 2000,
  markdownText: 12_000,
} as const;

export type Surface = 'message' | 'view';

/** Block types Slack does not draw here (an older workspace or client): refused as unsupported. */
export type RefusedBlocks = ReadonlySet<string>;
export { DATA_BLOCK_TYPES };

type Json = Record<string, unknown>;
const L = BLOCK_KIT_LIMITS;

/** Problems Slack would report for `blocks` on `surface`; empty when Slack accepts them. */
export function blockKitProblems(
  blocks: unknown,
  surface: Surface = 'message',
  refused: RefusedBlocks = new Set(),
): string[] {
  const problems: string[] = [];
  const fail: Fail = (pointer, what) => {
    problems.push(`[ERROR] ${what} [json-pointer:${pointer}]`);
  };
  if (!Array.isArray(blocks)) {
    fail('/blocks', 'must be an array');
    return problems;
  }
  const max = surface === 'message' ? L.messageBlocks : L.viewBlocks;
  if (blocks.length > max) fail('/blocks', `no more than ${max} items allowed`);
  const blockIds = new Set<string>();
  for (const [i, block] of (blocks as Json[]).entries()) {
    const at = `/blocks/${i}`;
    if (typeof block !== 'object' || block === null) {
      fail(at, 'must be an object');
      continue;
    }
    if (block.block_id !== undefined) {
      maxLength(block.block_id, L.blockId, `${at}/block_id`, fail);
      if (blockIds.has(String(block.block_id))) fail(`${at}/block_id`, 'duplicate block_id');
      blockIds.add(String(block.block_id));
    }
    if (refused.has(String(block.type))) fail(`${at}/type`, `unsupported block type ${JSON.stringify(block.type)}`);
    else checkBlock(block, at, surface, fail);
  }
  return problems;
}

function checkBlock(block: Json, at: string, surface: Surface, fail: Fail): void {
  switch (block.type) {
    case 'section':
      if (block.text === undefined && block.fields === undefined) fail(at, 'must provide text or fields');
      if (block.text !== undefined) textObject(block.text, L.sectionText, `${at}/text`, fail);
      if (block.fields !== undefined) {
        const fields = Array.isArray(block.fields) ? block.fields : [];
        if (!Array.isArray(block.fields)) fail(`${at}/fields`, 'must be an array');
        if (fields.length > L.sectionFields) fail(`${at}/fields`, `no more than ${L.sectionFields} items allowed`);
        for (const [j, f] of fields.entries()) textObject(f, L.fieldText, `${at}/fields/${j}`, fail);
      }
      if (block.accessory !== undefined) element(block.accessory, `${at}/accessory`, fail);
      break;
    case 'header':
      textObject(block.text, L.headerText, `${at}/text`, fail, 'plain_text');
      break;
    case 'context': {
      const elements = elementList(block, L.contextElements, at, fail);
      for (const [j, e] of elements.entries()) {
        if (e?.type === 'image') image(e, `${at}/elements/${j}`, fail);
        else textObject(e, L.sectionText, `${at}/elements/${j}`, fail);
      }
      break;
    }
    case 'actions': {
      const actionIds = new Set<string>();
      for (const [j, e] of elementList(block, L.actionsElements, at, fail).entries()) {
        element(e, `${at}/elements/${j}`, fail);
        if (typeof e?.action_id !== 'string') continue;
        if (actionIds.has(e.action_id)) fail(`${at}/elements/${j}/action_id`, 'duplicate action_id');
        actionIds.add(e.action_id);
      }
      break;
    }
    case 'image':
      image(block, at, fail);
      break;
    case 'markdown':
      if (typeof block.text !== 'string' || block.text.length === 0) fail(`${at}/text`, 'must be a non-empty string');
      else maxLength(block.text, L.markdownText, `${at}/text`, fail);
      break;
    case 'plan':
      checkPlan(block, at, fail);
      break;
    case 'task_card':
      checkTaskCard(block, at, fail);
      break;
    case 'divider':
    case 'rich_text':
      break;
    case 'context_actions':
    case 'data_visualization':
    case 'data_table':
    case 'table':
      checkDataBlock(block, at, fail);
      break;
    case 'input':
      if (surface === 'message') fail(`${at}/type`, 'input blocks are only allowed in views');
      break;
    default:
      fail(`${at}/type`, `unsupported block type ${JSON.stringify(block.type)}`);
  }
}

function elementList(block: Json, max: number, at: string, fail: Fail): Json[] {
  if (!Array.isArray(block.elements) || block.elements.length === 0) {
    fail(`${at}/elements`, 'must have at least 1 item');
    return [];
  }
  if (block.elements.length > max) fail(`${at}/elements`, `no more than ${max} items allowed`);
  return block.elements as Json[];
}

type Fail = (pointer: string, what: string) => void;

function maxLength(value: unknown, max: number, at: string, fail: Fail): void {
  if (typeof value !== 'string') fail(at, 'must be a string');
  else if (value.length > max) fail(at, `must be less than ${max + 1} characters`);
}

function textObject(value: unknown, max: number, at: string, fail: Fail, only?: 'plain_text'): void {
  const text = value as Json | undefined;
  if (typeof text !== 'object' || text === null) fail(at, 'must be a text object');
  else if (text.type !== 'plain_text' && (only || text.type !== 'mrkdwn'))
    fail(`${at}/type`, `must be ${only ?? 'plain_text or mrkdwn'}`);
  else if (typeof text.text !== 'string' || text.text.length === 0)
    fail(`${at}/text`, 'must be more than 0 characters');
  else maxLength(text.text, max, `${at}/text`, fail);
}

function image(value: Json, at: string, fail: Fail): void {
  maxLength(value.image_url, L.url, `${at}/image_url`, fail);
  maxLength(value.alt_text, L.imageAltText, `${at}/alt_text`, fail);
}

function element(value: unknown, at: string, fail: Fail): void {
  const e = value as Json | undefined;
  if (typeof e !== 'object' || e === null) {
    fail(at, 'must be an object');
    return;
  }
  if (e.action_id !== undefined) maxLength(e.action_id, L.actionId, `${at}/action_id`, fail);
  if (e.type !== 'button') return;
  textObject(e.text, L.buttonText, `${at}/text`, fail, 'plain_text');
  if (e.value !== undefined) maxLength(e.value, L.buttonValue, `${at}/value`, fail);
  if (e.url !== undefined) maxLength(e.url, L.url, `${at}/url`, fail);
  if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger')
    fail(`${at}/style`, 'must be primary or danger');
}
