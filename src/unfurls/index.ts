// Docs links that show their readers: `link_shared` → `chat.unfurl` with the page's visitors and "Update this page".

export { UPDATE_PAGE_ACTION, type UpdatePageValue } from './blocks.js';
export { registerUnfurls } from './register.js';
