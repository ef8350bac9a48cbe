import { describe, expect, it } from 'vitest';
import { feedbackBlock, readFeedbackValue } from '../../../src/agent/feedback/buttons.js';
import { feedbackModal, parseFeedbackSubmission } from '../../../src/agent/feedback/modal.js';
import { blockKitProblems } from '../../../tools/slack-standin/index.js';

const ROUND = { project: 'proj', jobId: 'job-1', round: 2, channel: 'C123DOCS', threadTs: '1700000000.000100' };

describe('feedback buttons and "What went wrong?"', () => {
  it('puts 👍 and 👎 in a context_actions block Slack accepts, each carrying its vote and the round', () => {
    const block = feedbackBlock(ROUND);
    expect(blockKitProblems([block])).toEqual([]);
    const [buttons] = block.elements;
    expect(buttons?.type).toBe('feedback_buttons');
    if (buttons?.type !== 'feedback_buttons') return;
    expect(readFeedbackValue(buttons.positive_button.value)).toEqual({ vote: 'up', ...ROUND });
    expect(readFeedbackValue(buttons.negative_button.value)).toEqual({ vote: 'down', ...ROUND });
  });

  it('reads no vote from a value it did not write', () => {
    for (const value of [undefined, '', 'up', '{"vote":"meh"}', JSON.stringify({ ...ROUND, vote: 'up', round: -1 })])
      expect(readFeedbackValue(value)).toBeUndefined();
  });

  it('reads the submitted text and its round back; an empty text or a lost round is a field error', () => {
    const view = feedbackModal({ ...ROUND, messageTs: '1700000000.000200' });
    expect(blockKitProblems(view.blocks, 'view')).toEqual([]);
    const values = (text: string) => ({ what_went_wrong: { value: { value: text } } });
    expect(parseFeedbackSubmission(view.private_metadata ?? '', values(' Add the retry headers '))).toEqual({
      ok: true,
      origin: { ...ROUND, messageTs: '1700000000.000200' },
      text: 'Add the retry headers',
    });
    expect(parseFeedbackSubmission(view.private_metadata ?? '', values('  '))).toMatchObject({ ok: false });
    expect(parseFeedbackSubmission('{}', values('text'))).toMatchObject({ ok: false });
  });
});
