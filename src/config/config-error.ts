export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly code = 'config_invalid';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** What to do about a configuration error, for the first-run message. */
export function nextStep(envFileExists: boolean): string {
  return envFileExists
    ? 'Next: fix these in .env (or the environment) and run `npm start` again. docs/configuration.md explains each variable.'
    : 'Next: copy .env.example to .env (`cp .env.example .env`), fill in your values, and run `npm start` again. docs/configuration.md explains each variable.';
}
