// The app's two cookies: the session (its token, from createMemberSession) and, for the signed-out
// forms, the double-submit CSRF token. Over https they take the __Host- prefix, which browsers only
// accept with Secure, Path=/ and no Domain, so no sibling host can set or shadow them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { randomString } from '../platform/index.ts';

export interface CookieNames {
  session: string;
  csrf: string;
  secure: boolean;
}

export function cookieNames(config: Config): CookieNames {
  const secure = config.appUrl.protocol === 'https:';
  return secure
    ? { session: '__Host-app_session', csrf: '__Host-app_csrf', secure }
    : { session: 'app_session', csrf: 'app_csrf', secure };
}

/** A cookie value we issued is short base62 text; anything else is treated as absent. */
export function cookieValue(request: FastifyRequest, name: string): string | null {
  const value = request.cookies[name];
  return typeof value === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : null;
}

function baseOptions(names: CookieNames) {
  return { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: names.secure };
}

export function setSessionCookie(reply: FastifyReply, config: Config, token: string): void {
  const names = cookieNames(config);
  reply.setCookie(names.session, token, {
    ...baseOptions(names),
    maxAge: Math.floor(config.appSessions.maxHours * 3600),
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  const names = cookieNames(config);
  reply.clearCookie(names.session, baseOptions(names));
}

/**
 * The double-submit token of the signed-out forms: the one the browser already has, or a new one
 * set now. A session cookie (no Max-Age): it only has to outlive the form.
 */
export function csrfCookieToken(request: FastifyRequest, reply: FastifyReply, config: Config): string {
  const names = cookieNames(config);
  const existing = cookieValue(request, names.csrf);
  if (existing) return existing;
  const token = randomString(32);
  reply.setCookie(names.csrf, token, baseOptions(names));
  return token;
}
