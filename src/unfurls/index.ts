// What other features may use of docs links: which page of a project's docs site a URL is (/insights reads
// feedback entries the service names by URL).

export { docsPageOf } from './match.js';
