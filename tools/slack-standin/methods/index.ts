import { agentMethods } from './agents.js';
import type { Handler } from './answer.js';
import { assistantMethods } from './assistant.js';
import { chatMethods } from './chat.js';
import { conversationMethods } from './conversations.js';
import { fileMethods } from './files.js';
import { identityMethods } from './identity.js';
import { reactionMethods } from './reactions.js';
import { streamMethods } from './streams.js';
import { unfurlMethods } from './unfurl.js';
import { viewMethods } from './views.js';

/** Every Web API method the stand-in answers, by family. Others answer `{ ok: true }`. */
export const METHODS: Record<string, Handler> = {
  ...identityMethods,
  ...chatMethods,
  ...streamMethods,
  ...conversationMethods,
  ...fileMethods,
  ...viewMethods,
  ...assistantMethods,
  ...agentMethods,
  ...unfurlMethods,
  ...reactionMethods,
};
