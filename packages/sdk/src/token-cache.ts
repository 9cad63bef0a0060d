// The client-credentials access token, shared by every call of one client: fetched once, reused
// until shortly before it expires, and fetched by a single request however many calls wait for it.

export interface IssuedToken {
  accessToken: string;
  expiresInSeconds: number;
}

/** Renew this long before expiry so no request leaves with a token about to lapse. */
const RENEW_EARLY_MS = 60_000;

export class TokenCache {
  #current: { token: string; renewAt: number } | null = null;
  #pending: Promise<string> | null = null;
  readonly #issue: () => Promise<IssuedToken>;
  readonly #now: () => number;

  constructor(issue: () => Promise<IssuedToken>, now: () => number = Date.now) {
    this.#issue = issue;
    this.#now = now;
  }

  /** A valid token: the cached one, the one already being fetched, or a new one. */
  get(): Promise<string> {
    if (this.#current && this.#now() < this.#current.renewAt) return Promise.resolve(this.#current.token);
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  /** Forgets `token` after the API refused it; a newer token another call fetched is kept. */
  invalidate(token: string): void {
    if (this.#current?.token === token) this.#current = null;
  }

  async #fetch(): Promise<string> {
    const issued = await this.#issue();
    const lifetimeMs = issued.expiresInSeconds * 1000;
    // Short-lived tokens (tests, odd servers) renew at half their life instead.
    const early = Math.min(RENEW_EARLY_MS, lifetimeMs / 2);
    this.#current = { token: issued.accessToken, renewAt: this.#now() + lifetimeMs - early };
    return issued.accessToken;
  }
}
