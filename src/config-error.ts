// A setting the service cannot start with: one line naming the variable and what it accepts.
export class ConfigError extends Error {}
