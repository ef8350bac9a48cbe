/** Rows per page of an /insights view: each is a block with its button, well inside Slack's 50 blocks. */
export const MAX_ROWS = 20;
