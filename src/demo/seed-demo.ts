// The demo organization seeded on first start of an empty embedded database
// (docs/architecture.md#demo-organization): paid and free events (UGX, and one in KES for M-Pesa)
// with cards turned on, an API client with every scope, a publishable key for localhost:5173, a
// webhook endpoint when DEMO_WEBHOOK_URL is set, and an invitation of its owner to the organizer app.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_SCOPES, insertApiClient } from '../auth/index.ts';
import type { AppContext } from '../context.ts';
import { insertEvent, type EventInput } from '../events/index.ts';
import { createInvitation, invitationUrl } from '../members/index.ts';
import { countOrganizations, createOrganization } from '../organizations/index.ts';
import { ConfigError } from '../config.ts';
import { checkEndpointUrl, insertWebhookEndpoint } from '../webhooks/index.ts';

const DAY = 24 * 3600 * 1000;
const DEMO_OWNER_EMAIL = 'owner@demo-running.example';
/** the example partner site's origins (examples/partner-site) */
const DEMO_PARTNER_ORIGINS = ['http://localhost:5173', 'http://127.0.0.1:5173'];

export interface DemoCredentials {
  organization_id: string;
  client_id: string;
  client_secret: string;
  publishable_key: string;
  /** where the publishable key and checkout.js work (the example partner site) */
  allowed_domains: string[];
  /** where checkout sessions may send buyers back to */
  return_url_domains: string[];
  admin_api_key: string | null;
  event_ids: string[];
  /** the organizer app's invitation of the demo owner, who chooses a password there */
  owner_email: string;
  owner_invitation_url: string;
  /** when DEMO_WEBHOOK_URL is set */
  webhook_endpoint_id?: string;
  webhook_secret?: string;
}

function demoEvents(now: Date): EventInput[] {
  const at = (days: number, hour: number) => {
    const d = new Date(now.getTime() + days * DAY);
    d.setUTCHours(hour, 0, 0, 0);
    return d.toISOString();
  };
  const common = {
    status: 'open',
    visibility: 'public',
    timezone: 'Africa/Kampala',
    currency: 'UGX',
    reg_opens_at: new Date(now.getTime() - DAY).toISOString(),
    organizer_name: 'Demo Running Club',
    support_email: 'support@demo-running.example',
  };
  return [
    {
      ...common,
      name: 'Kampala City Half Marathon',
      handle: 'kampala-city-half',
      short_code: 'KCH',
      description: 'A fast loop through the city centre at sunrise.',
      venue: 'Kololo Independence Grounds, Kampala',
      event_type: 'road_race',
      starts_at: at(30, 3),
      ends_at: at(30, 9),
      reg_closes_at: at(29, 18),
      waiver_required: true,
      waiver_version: '2026-01-15',
      waiver_text: 'I take part at my own risk and am fit to run the distance I enter.',
      additional_questions: [
        {
          key: 'tshirt_size',
          label: 'T-shirt size',
          type: 'select',
          required: true,
          options: ['XS', 'S', 'M', 'L', 'XL'],
          help: '',
        },
      ],
      ticket_types: [
        { name: '21 km', price_minor: 50000, capacity: 500, distance_km: 21.1, min_age: 18 },
        { name: '10 km', price_minor: 30000, capacity: 800, distance_km: 10 },
        { name: '5 km fun run', price_minor: 0, capacity: 300, distance_km: 5 },
      ],
    },
    {
      ...common,
      name: 'Entebbe Lakeside 10K',
      handle: 'entebbe-lakeside-10k',
      short_code: 'ELK',
      description: 'Flat and scenic along Lake Victoria.',
      venue: 'Entebbe Botanical Gardens',
      event_type: 'road_race',
      starts_at: at(45, 4),
      ends_at: at(45, 8),
      reg_closes_at: at(44, 18),
      ticket_types: [{ name: '10 km', price_minor: 25000, capacity: 400, distance_km: 10 }],
    },
    {
      ...common,
      name: 'Community Park Run',
      handle: 'community-park-run',
      short_code: 'CPR',
      description: 'Free weekly 5 km in the park.',
      venue: 'Centenary Park, Kampala',
      event_type: 'fun_run',
      starts_at: at(7, 5),
      ends_at: at(7, 7),
      reg_closes_at: at(6, 18),
      ticket_types: [{ name: '5 km', price_minor: 0, capacity: 200, distance_km: 5 }],
    },
    // A KES event, so that the demo shows M-Pesa: KES events offer M-Pesa only, priced in whole
    // shillings (cents, multiples of 100), as M-Pesa takes no cents.
    {
      ...common,
      timezone: 'Africa/Nairobi',
      currency: 'KES',
      name: 'Nairobi Arboretum 10K',
      handle: 'nairobi-arboretum-10k',
      short_code: 'NAR',
      description: 'Two shaded laps of the Arboretum and back along State House Road.',
      venue: 'Nairobi Arboretum, Nairobi',
      event_type: 'road_race',
      starts_at: at(60, 3),
      ends_at: at(60, 6),
      reg_closes_at: at(59, 18),
      ticket_types: [
        { name: '10 km', price_minor: 150_000, capacity: 300, distance_km: 10 },
        { name: '5 km', price_minor: 100_000, capacity: 200, distance_km: 5 },
      ],
    },
  ];
}

/** Seeds once: only when the database has no organization yet. Returns null when it did nothing. */
export async function seedDemo(ctx: AppContext, adminApiKey: string | null): Promise<DemoCredentials | null> {
  if ((await countOrganizations(ctx.database.db)) > 0) return null;
  const now = ctx.clock.now();
  let webhookUrl: string | undefined;
  if (ctx.config.demoWebhookUrl) {
    const checked = await checkEndpointUrl(ctx.webhooks, ctx.config.demoWebhookUrl);
    if (!checked.ok) {
      throw new ConfigError(
        `DEMO_WEBHOOK_URL ${checked.message} (a local receiver needs WEBHOOK_ALLOW_PRIVATE_URLS=true)`,
      );
    }
    webhookUrl = checked.url;
  }
  const result = await ctx.database.transaction(async (tx) => {
    const org = await createOrganization(tx, {
      name: 'Demo Running Club',
      paymentsEnabled: true,
      supportEmail: 'support@demo-running.example',
      // cards on, so the demo shows every method this service takes (the simulator's test cards)
      optedInMethods: ctx.paymentMethods.filter((m) => m.optIn).map((m) => m.key),
    });
    const eventIds: string[] = [];
    for (const input of demoEvents(now)) eventIds.push((await insertEvent(tx, org.id, input)).id);
    const { client, clientSecret } = await insertApiClient(tx, {
      organizationId: org.id,
      name: 'Demo partner',
      // What the checkout's buttons call the partner's site ("Cancel and return to …").
      displayName: 'Demo Running Club',
      scopes: [...ALL_SCOPES],
      allowedDomains: DEMO_PARTNER_ORIGINS,
      returnUrlDomains: DEMO_PARTNER_ORIGINS,
    });
    const webhook = webhookUrl
      ? await insertWebhookEndpoint(tx, {
          organizationId: org.id,
          url: webhookUrl,
          eventTypes: ['order.paid'],
          now,
        })
      : undefined;
    const owner = await createInvitation(tx, {
      organizationId: org.id,
      email: DEMO_OWNER_EMAIL,
      role: 'owner',
      invitedBy: null,
      now,
    });
    return {
      organization_id: org.id,
      owner_email: DEMO_OWNER_EMAIL,
      owner_invitation_url: invitationUrl(ctx.config.appUrl, owner.token),
      client_id: client.id,
      client_secret: clientSecret,
      publishable_key: client.publishableKey,
      allowed_domains: client.allowedDomains,
      return_url_domains: client.returnUrlDomains,
      admin_api_key: adminApiKey,
      event_ids: eventIds,
      ...(webhook && { webhook_endpoint_id: webhook.endpoint.id, webhook_secret: webhook.secret }),
    };
  });
  if (!ctx.config.dataDir.startsWith('memory://')) {
    mkdirSync(ctx.config.dataDir, { recursive: true });
    writeFileSync(join(ctx.config.dataDir, 'demo.json'), JSON.stringify(result, null, 2) + '\n', {
      mode: 0o600,
    });
  }
  return result;
}
