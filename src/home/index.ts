// What other features may use of App Home: publishing a person's Home now (after a change they made elsewhere).
// Everything else in home/ is its own.

export { publishHome } from './publish.js';
