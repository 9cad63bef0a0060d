// Who may reach an app route, decided before its handler: the member's session (from the cookie,
// checked on every request), the CSRF token of every POST, a same-site Origin, and the permission
// the route declares in its config, asked of the one role table (members/roles.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import {
  can,
  findCurrentSession,
  PERMISSIONS,
  type CurrentSession,
  type Permission,
} from '../members/index.ts';
import { safeEqual } from '../platform/index.ts';
import { cookieNames, cookieValue } from './app-cookies.ts';
import { formOf } from './form-body.ts';

/**
 * static: files (GET only), no session looked up; public: anyone, and signed-out forms use the
 * double-submit cookie; member: signed in, whatever the role (signing out, one's own account); a
 * permission (members/roles.ts): signed in with a role that holds it, else 403.
 */
export type Access = 'static' | 'public' | 'member' | Permission;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** who may use an organizer app route (src/app/app-access.ts) */
    access?: Access;
  }
  interface FastifyRequest {
    /** the signed-in member's session, set by the app's access check; null when signed out */
    appSession: CurrentSession | null;
  }
}

export const CSRF_FIELD = '_csrf';
/** The same token for a script's JSON POST (the check-in page's sync), which has no form field. */
const CSRF_HEADER = 'x-csrf-token';

export type PageErrorKind = 'csrf' | 'forbidden' | 'not_found' | 'gone';

/** An answer that is a whole error page (status-pages.ts renders each kind). */
export class PageError extends Error {
  readonly kind: PageErrorKind;
  readonly status: number;

  constructor(kind: PageErrorKind, message: string = kind) {
    super(message);
    this.name = 'PageError';
    this.kind = kind;
    this.status = { csrf: 403, forbidden: 403, not_found: 404, gone: 410 }[kind];
  }
}

/** The session of a route that requires one (the access check has run). */
export function memberOf(request: FastifyRequest): CurrentSession {
  const current = request.appSession;
  if (!current) throw new PageError('forbidden', 'no session on a member route');
  return current;
}

/** The longest path taken as where to go after signing in. */
export const NEXT_MAX_LENGTH = 1000;

/** A path to return to after signing in: same-site only ("/x", never "//host" or "/\host"). */
export function safeNext(value: string | undefined | null): string | null {
  if (!value || value.length > NEXT_MAX_LENGTH || !value.startsWith('/')) return null;
  if (value.startsWith('//') || value.startsWith('/\\')) return null;
  // Control characters and backslashes could be read as another host by some browsers.
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (code < 0x20 || code === 0x7f || char === '\\') return null;
  }
  return value;
}

/** The member's live session named by the request's cookie, or null. */
export async function loadSession(ctx: AppContext, request: FastifyRequest): Promise<CurrentSession | null> {
  const token = cookieValue(request, cookieNames(ctx.config).session);
  if (!token) return null;
  return findCurrentSession(ctx.database.db, token, ctx.clock.now(), ctx.config.appSessions);
}

/**
 * A POST must not come from another site. Our pages say Referrer-Policy: no-referrer, under which
 * browsers send `Origin: null` even for our own forms, so "null" says nothing (any page can choose
 * it); any other Origin must be the app's own. Sec-Fetch-Site, sent whatever the referrer policy,
 * must be same-origin when present. The CSRF token is what protects; these refuse earlier.
 */
function sameOrigin(ctx: AppContext, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== 'null' && origin !== ctx.config.appUrl.origin) return false;
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin';
}

function tokensMatch(expected: string | null, given: string | undefined): boolean {
  return expected !== null && typeof given === 'string' && given !== '' && safeEqual(expected, given);
}

/** The preHandler of every app route. */
export function checkAccess(ctx: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const access = request.routeOptions.config?.access ?? 'public';
    if (access === 'static') return;
    const post = request.method === 'POST';
    if (post && !sameOrigin(ctx, request)) throw new PageError('csrf', 'foreign Origin');
    const current = await loadSession(ctx, request);
    request.appSession = current;
    const header = request.headers[CSRF_HEADER];
    const given = post
      ? (formOf(request.body).get(CSRF_FIELD) ?? (typeof header === 'string' ? header : undefined))
      : undefined;
    if (access === 'public') {
      const cookie = cookieValue(request, cookieNames(ctx.config).csrf);
      if (post && !tokensMatch(cookie, given)) throw new PageError('csrf', 'double-submit mismatch');
      return;
    }
    if (!current) {
      const next = post ? null : safeNext(request.url);
      const target = next && next !== '/' ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in';
      return reply.redirect(target, 303);
    }
    if (post && !tokensMatch(current.session.csrfToken, given)) {
      throw new PageError('csrf', 'session token mismatch');
    }
    if (access === 'member') return;
    if (!can(current.role, access)) {
      // a check-in volunteer's home is the check-in list (signing in lands on /)
      if (request.method === 'GET' && request.url === '/' && can(current.role, 'check_in')) {
        return reply.redirect('/check-in', 303);
      }
      throw new PageError('forbidden', PERMISSIONS[access]);
    }
  };
}
