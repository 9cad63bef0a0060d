// Test helpers for the organizer app (APP host): an agent that keeps cookies and the last page's
// CSRF token like a browser, members made through a real invitation, and signing in through the
// sign-in form.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { acceptInvitation, createInvitation } from '../../src/members/invitations.ts';
import type { MemberRole } from '../../src/members/members.schema.ts';
import { createOrganization } from '../../src/organizations/organizations.ts';
import { findEvent } from '../../src/events/events.ts';
import { bearer, getToken, type Harness, type TestPartner } from '../helpers/harness.ts';

export interface Reply {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  /** the body as bytes, for files that are not text (a workbook) */
  rawPayload: Buffer;
}

let ipCounter = 0;
// Each test process takes its own block: with Redis the per-IP counters outlive a run.
const IP_BLOCK = 20 + Math.floor(Math.random() * 200);

/** A fresh client address, so that per-IP sign-in limits of one test never touch another's. */
export function nextIp(): string {
  ipCounter++;
  return `10.${IP_BLOCK}.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
}

export type Fields = Record<string, string | string[]>;

export function encodeForm(fields: Fields): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
  }
  return params.toString();
}

/** The value of the first hidden _csrf input of a page. */
export function csrfOf(body: string): string | null {
  return /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? null;
}

/** A browser-like client of the APP host: cookies kept, the last page's CSRF token remembered. */
export class Agent {
  readonly h: Harness;
  readonly ip: string;
  readonly cookies = new Map<string, string>();
  csrf: string | null = null;
  userAgent = 'AppTest/1.0';

  constructor(h: Harness, ip = nextIp()) {
    this.h = h;
    this.ip = ip;
  }

  private remember(res: Reply): void {
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [String(set)] : []) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some(
        (a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a),
      );
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = csrfOf(res.body);
    if (token) this.csrf = token;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<Reply> {
    const res = await this.h.service.app.inject({
      method: 'GET',
      url,
      remoteAddress: this.ip,
      headers: {
        'user-agent': this.userAgent,
        ...(this.cookies.size > 0 && { cookie: this.cookieHeader() }),
        ...headers,
      },
    });
    this.remember(res);
    return res;
  }

  /** POSTs a form; `_csrf` is the last page's token unless the fields say otherwise. */
  async post(url: string, fields: Fields = {}, headers: Record<string, string> = {}): Promise<Reply> {
    const body = { ...(this.csrf !== null && { _csrf: this.csrf }), ...fields };
    const res = await this.h.service.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.ip,
      headers: {
        'user-agent': this.userAgent,
        'content-type': 'application/x-www-form-urlencoded',
        ...(this.cookies.size > 0 && { cookie: this.cookieHeader() }),
        ...headers,
      },
      payload: encodeForm(body),
    });
    this.remember(res);
    return res;
  }
}

export interface TestMember {
  memberId: string;
  email: string;
  password: string;
  organizationId: string;
}

export async function makeOrganization(h: Harness, name = `Org ${randomBytes(3).toString('hex')}`) {
  return createOrganization(h.service.ctx.database.db, {
    name,
    paymentsEnabled: true,
    supportEmail: 'help@example.org',
  });
}

/** A member of the organization with the role, made through a real invitation. */
export async function makeMember(
  h: Harness,
  organizationId: string,
  role: MemberRole,
  options: { email?: string; password?: string } = {},
): Promise<TestMember> {
  const ctx = h.service.ctx;
  const email = options.email ?? `${role}-${randomBytes(4).toString('hex')}@example.org`;
  const password = options.password ?? `pw-${randomBytes(8).toString('hex')}`;
  const { token } = await createInvitation(ctx.database.db, {
    organizationId,
    email,
    role,
    invitedBy: null,
    now: ctx.clock.now(),
  });
  const accepted = await acceptInvitation(ctx.database, token, { password }, ctx.clock.now());
  assert.ok(accepted.ok, 'the invitation is accepted');
  return { memberId: accepted.member.id, email, password, organizationId };
}

/** An agent signed in as the member through the sign-in form. */
export async function signIn(h: Harness, member: TestMember, agent = new Agent(h)): Promise<Agent> {
  await agent.get('/sign-in');
  const res = await agent.post('/sign-in', { email: member.email, password: member.password });
  assert.equal(res.statusCode, 303, res.body);
  await agent.get('/');
  return agent;
}

export function locationOf(res: Reply): string {
  return String(res.headers.location ?? '');
}

/** The text of the page without tags, whitespace collapsed: what a person reads. */
export function textOf(body: string): string {
  return body
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** An order of `partner` made through the partner API: a free 5 km one (paid at once) by default. */
export async function makeOrder(
  h: Harness,
  partner: TestPartner,
  options: { eventId: string; buyer?: { name: string; email: string; phone: string }; paid?: boolean },
): Promise<{ id: string; order_code: string; registrations: { id: string }[] }> {
  const token = await getToken(h, partner);
  const found = await findEvent(h.service.ctx.database.db, options.eventId);
  const ticket = found!.ticketTypes.find((t) => (options.paid ? t.priceMinor > 0 : t.priceMinor === 0))!;
  const buyer = options.buyer ?? { name: 'Ada Runner', email: 'ada@example.org', phone: '0772123456' };
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: JSON.stringify({
      event_id: options.eventId,
      items: [{ ticket_type_id: ticket.id, participant_name: `${buyer.name} Junior` }],
      buyer,
    }),
  });
  if (res.statusCode !== 201) throw new Error(`order failed: ${res.statusCode} ${res.body}`);
  return res.json().data;
}
