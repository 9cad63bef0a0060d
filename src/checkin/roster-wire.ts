// The roster as the check-in page receives it, and each live check-in: the wire shapes the server
// writes (roster.ts) and the page's script keeps (web/checkin/store.ts). Types only, so the script
// bundles nothing from here.

export interface RosterRunner {
  id: string;
  name: string;
  ticket_type_id: string;
  bib: number | null;
  code: string | null;
  /** SHA-256 of the ticket's token, hex, first 32 characters: a scan matches it without the token */
  scan: string | null;
  ticket_void: boolean;
  shirt: string | null;
  emergency_name: string | null;
  emergency_phone: string | null;
}

export interface CheckInState {
  registration_id: string;
  client_id: string;
  at: string;
  by: string;
}

export interface Roster {
  event: { id: string; name: string; timezone: string };
  /** the server's time of this answer: where the device's next poll of changes starts */
  now: string;
  ticket_types: { id: string; name: string }[];
  shirt: { label: string; options: string[] } | null;
  runners: RosterRunner[];
  check_ins: CheckInState[];
}
