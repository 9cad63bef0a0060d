// Human-readable output of the CLI: aligned key/value blocks and plain tables. `--json` skips all this.

type Data = Record<string, unknown>;

function text(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(text).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `label  value` lines with the values aligned. */
export function keyValues(pairs: Array<[string, unknown]>, indent = ''): string {
  const width = Math.max(...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${indent}${label.padEnd(width)}  ${text(value)}`).join('\n');
}

/** A plain table with a header row; `(none)` when there are no rows. */
export function table(rows: Data[], columns: string[], indent = ''): string {
  if (rows.length === 0) return `${indent}(none)`;
  const cells = rows.map((row) => columns.map((c) => text(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    indent +
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

function percent(bp: unknown): string {
  return typeof bp === 'number' ? `${bp / 100}%` : text(bp);
}

export function renderOrganization(org: Data): string {
  const fees = (org.fees ?? {}) as Record<string, { percent_bp?: number; fixed_minor?: number }>;
  const fee = (m: string) => `${percent(fees[m]?.percent_bp)} + ${text(fees[m]?.fixed_minor)}`;
  return keyValues([
    ['organization', org.id],
    ['name', org.name],
    ['payments_enabled', org.payments_enabled],
    ['support_email', org.support_email],
    ...Object.keys(fees).map((m): [string, unknown] => [`fee ${m}`, fee(m)]),
    ['created_at', org.created_at],
    ['updated_at', org.updated_at],
  ]);
}

export function renderOrganizations(data: Data): string {
  return table(data.organizations as Data[], ['id', 'name', 'payments_enabled', 'support_email']);
}

const TICKET_COLUMNS = [
  'ticket_type_id',
  'name',
  'price_minor',
  'capacity',
  'paid_count',
  'held_count',
  'remaining',
];

export function renderTicketType(tt: Data): string {
  return keyValues([
    ['ticket_type', tt.ticket_type_id],
    ['event', tt.event_id],
    ['name', tt.name],
    ['price', `${text(tt.price_minor)} ${text(tt.currency)}${tt.is_free ? ' (free)' : ''}`],
    ['capacity', tt.capacity],
    ['paid / held', `${text(tt.paid_count)} / ${text(tt.held_count)}`],
    ['remaining', tt.remaining],
    ['distance_km', tt.distance_km],
    ['sales', `${text(tt.sales_start)} .. ${text(tt.sales_end)}`],
    ['min_age', tt.min_age],
  ]);
}

export function renderEvent(event: Data): string {
  const questions = (event.additional_questions as Data[] | undefined) ?? [];
  return [
    keyValues([
      ['event', event.event_id],
      ['organization', event.organization_id],
      ['name', event.name],
      ['handle', event.handle],
      ['short_code', event.short_code],
      ['status', event.status],
      ['visibility', event.visibility],
      ['starts_at', event.starts_at],
      ['ends_at', event.ends_at],
      ['timezone', event.timezone],
      ['registration', `${text(event.reg_opens_at)} .. ${text(event.reg_closes_at)}`],
      ['currency', event.currency],
      ['venue', event.venue],
      ['support_email', event.support_email],
      ['payment_methods', event.payment_methods],
      ['waiver', event.waiver_required ? `required (${text(event.waiver_version)})` : 'not required'],
      ['questions', questions.map((q) => q.key)],
    ]),
    'ticket types:',
    table((event.ticket_types as Data[] | undefined) ?? [], TICKET_COLUMNS, '  '),
  ].join('\n');
}

export function renderEvents(data: Data): string {
  return table(data.events as Data[], ['event_id', 'status', 'visibility', 'starts_at', 'handle', 'name']);
}

export function renderClient(client: Data): string {
  const lines = [
    keyValues([
      ['client_id', client.client_id],
      ...(client.client_secret !== undefined
        ? ([['client_secret', client.client_secret]] as Array<[string, unknown]>)
        : []),
      ['organization', client.organization_id],
      ['name', client.name],
      ['display_name', client.display_name],
      ['status', client.status],
      ['scopes', client.scopes],
      ['allowed_domains', client.allowed_domains],
      ['return_url_domains', client.return_url_domains],
      ['publishable_key', client.publishable_key],
      ['revoked_at', client.revoked_at],
      ['secret_rotated_at', client.secret_rotated_at],
      ['created_at', client.created_at],
    ]),
  ];
  if (client.client_secret !== undefined) lines.push(SECRET_NOTE);
  return lines.join('\n');
}

export function renderClients(data: Data): string {
  return table(data.clients as Data[], ['client_id', 'status', 'name', 'scopes', 'allowed_domains']);
}

const SECRET_NOTE = 'The client secret is shown only this once: store it now (server side only).';

export function renderSecret(data: Data): string {
  return `${keyValues([
    ['client_id', data.client_id],
    ['client_secret', data.client_secret],
  ])}\n${SECRET_NOTE}`;
}

export function renderPublishableKey(data: Data): string {
  return keyValues([
    ['client_id', data.client_id],
    ['publishable_key', data.publishable_key],
  ]);
}

export function renderWebhookEndpoint(endpoint: Data): string {
  const pairs: Array<[string, unknown]> = [
    ['id', endpoint.id],
    ['url', endpoint.url],
    ['events', endpoint.events],
    ['status', endpoint.status],
    ['disabled_reason', endpoint.disabled_reason],
    ['failing_since', endpoint.failing_since],
  ];
  if (endpoint.secret !== undefined)
    pairs.push(['secret', `${String(endpoint.secret)}  (shown once: store it now)`]);
  if (endpoint.deleted !== undefined) pairs.push(['deleted', endpoint.deleted]);
  return keyValues(pairs);
}

export function renderWebhookEndpoints(data: Data): string {
  return table((data.webhook_endpoints as Data[]) ?? [], ['id', 'status', 'events', 'url']);
}

export function renderDelivery(delivery: Data): string {
  const head = keyValues([
    ['id', delivery.id],
    ['webhook_id', delivery.webhook_id],
    ['event_type', delivery.event_type],
    ['status', delivery.status],
    ['attempts', delivery.attempt_count],
    ['next_attempt_at', delivery.next_attempt_at],
    ['delivered_at', delivery.delivered_at],
  ]);
  const attempts = (delivery.attempts as Data[] | undefined) ?? [];
  return attempts.length === 0
    ? head
    : `${head}\n${table(attempts, ['at', 'status', 'latency_ms', 'error'], '  ')}`;
}

export function renderDeliveries(data: Data): string {
  return table((data.deliveries as Data[]) ?? [], [
    'id',
    'event_type',
    'status',
    'attempt_count',
    'last_status',
    'created_at',
  ]);
}
