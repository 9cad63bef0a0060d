// How app handlers answer: an HTML page, a 303 to another page, and the signed-in member's
// view of themselves (their session and organizations) that every signed-in page's header shows.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { ActingOn, Actor } from '../audit/index.ts';
import { listMemberOrganizations } from '../members/index.ts';
import { memberOf } from './app-access.ts';
import type { Viewer } from './views/layout.ts';

const HTML = 'text/html; charset=utf-8';

export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type(HTML).send(body);
}

export function seeOther(reply: FastifyReply, location: string) {
  return reply.redirect(location, 303);
}

export async function viewerOf(ctx: AppContext, request: FastifyRequest): Promise<Viewer> {
  const current = memberOf(request);
  const organizations = await listMemberOrganizations(ctx.database.db, current.member.id);
  return { current, organizations };
}

/** The viewer when signed in, else null; never fails (error pages use it). */
export async function optionalViewer(ctx: AppContext, request: FastifyRequest): Promise<Viewer | null> {
  if (!request.appSession) return null;
  try {
    return await viewerOf(ctx, request);
  } catch {
    return null;
  }
}

/** The user agent kept with a session, bounded. */
export function userAgentOf(request: FastifyRequest): string {
  return String(request.headers['user-agent'] ?? '').slice(0, 300);
}

/** The signed-in member as the audit log names them, with the request's client IP. */
export function actorOf(request: FastifyRequest): Actor {
  const { member } = memberOf(request);
  return { memberId: member.id, label: member.email, ip: request.ip };
}

/** The signed-in member acting within their current organization, as actions take it. */
export function actingOf(request: FastifyRequest): ActingOn & { organizationId: string } {
  return { actor: actorOf(request), organizationId: memberOf(request).organizationId };
}
