import type { types } from '@slack/bolt';
import { type Evidence, fitEvidence } from './evidence.js';

// The Draft a fix button on an /insights row, a digest's fix and a docs link's unfurl: it carries its evidence.

export const DRAFT_ACTION = 'insights.draft';

/** A row's Draft a fix: opens the form with `evidence` (docs links' unfurls carry one too, as Update this page). */
export function draftButton(evidence: Evidence): types.Button {
  return {
    type: 'button',
    action_id: DRAFT_ACTION,
    text: { type: 'plain_text', text: 'Draft a fix' },
    value: JSON.stringify(fitEvidence(evidence)),
  };
}
