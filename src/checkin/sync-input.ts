// The body a check-in device sends: its check-ins and undos, each named by the id the device made.
// One TypeBox schema says what fits; anything else is refused whole (400) before any write.
import { Type } from 'typebox';
import { Value } from 'typebox/value';

/** A device sends its queue in parts of at most this many items (check-ins and undos together). */
const SYNC_BATCH_MAX = 500;

const ClientId = Type.String({ pattern: '^[A-Za-z0-9-]{8,64}$' });
const Instant = Type.String({
  maxLength: 40,
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?(Z|[+-]\\d{2}:\\d{2})$',
});

const SyncIn = Type.Object(
  {
    check_ins: Type.Array(
      Type.Object(
        {
          id: ClientId,
          registration_id: Type.String({ pattern: '^reg_[A-Za-z0-9]{8,64}$' }),
          at: Instant,
        },
        { additionalProperties: false },
      ),
      { maxItems: SYNC_BATCH_MAX },
    ),
    undos: Type.Array(Type.Object({ id: ClientId, at: Instant }, { additionalProperties: false }), {
      maxItems: SYNC_BATCH_MAX,
    }),
  },
  { additionalProperties: false },
);

export interface CheckInItem {
  clientId: string;
  registrationId: string;
  at: Date;
}
export interface UndoItem {
  clientId: string;
  at: Date;
}

/** The body as items, or the first problems in words a developer reads. */
export function readSync(
  body: unknown,
): { ok: true; checkIns: CheckInItem[]; undos: UndoItem[] } | { ok: false; message: string } {
  if (!Value.Check(SyncIn, body)) {
    const problems = [...Value.Errors(SyncIn, body)]
      .slice(0, 3)
      .map((e) => `${e.instancePath || 'body'} ${e.message}`);
    return { ok: false, message: `The check-ins could not be read: ${problems.join('; ')}.` };
  }
  if (body.check_ins.length + body.undos.length > SYNC_BATCH_MAX) {
    return { ok: false, message: `At most ${SYNC_BATCH_MAX} check-ins and undos at once.` };
  }
  const dates = [...body.check_ins, ...body.undos].map((item) => new Date(item.at));
  if (dates.some((d) => Number.isNaN(d.getTime()))) {
    return { ok: false, message: 'The check-ins could not be read: a time is not a real date.' };
  }
  const ids = [...body.check_ins.map((c) => c.id)];
  if (new Set(ids).size !== ids.length) {
    return { ok: false, message: 'The check-ins could not be read: an id is given twice.' };
  }
  return {
    ok: true,
    checkIns: body.check_ins.map((c) => ({
      clientId: c.id,
      registrationId: c.registration_id,
      at: new Date(c.at),
    })),
    undos: body.undos.map((u) => ({ clientId: u.id, at: new Date(u.at) })),
  };
}
