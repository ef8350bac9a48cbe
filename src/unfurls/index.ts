// Docs links that show their readers: `link_shared` → `chat.unfurl` with the page's visitors, its ratings and
// "Update this page" (/insights' Draft a fix).

export { registerUnfurls } from './register.js';
