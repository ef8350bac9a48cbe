// What other features may use of /insights: the Draft a fix button and the evidence it carries (docs links'
// "Update this page"), and its digest's kind (healing and a workspace's removal reach every digest). The composition (src/app/) registers its doors and its tasks' work from their own modules.

export { INSIGHTS_DIGEST } from './digest/kind.js';
export { draftButton } from './draft-button.js';
export type { Evidence } from './evidence.js';
