// Time zones as the checkout names them: the zone's city and its abbreviation at the
// event's instant, never a bare offset where the zone has a name.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { zoneLabel } from '../../src/site/format.ts';

const WINTER = new Date('2026-01-15T09:00:00Z');
const SUMMER = new Date('2026-07-15T09:00:00Z');

describe('zoneLabel', () => {
  const cases: [string, Date, string][] = [
    ['Africa/Kampala', WINTER, 'Kampala time, EAT'],
    ['Africa/Kampala', SUMMER, 'Kampala time, EAT'],
    ['Africa/Nairobi', SUMMER, 'Nairobi time, EAT'],
    ['Africa/Dar_es_Salaam', SUMMER, 'Dar es Salaam time, EAT'],
    ['Europe/London', WINTER, 'London time, GMT'],
    ['Europe/London', SUMMER, 'London time, BST'],
    ['America/New_York', WINTER, 'New York time, EST'],
    ['America/New_York', SUMMER, 'New York time, EDT'],
    ['UTC', SUMMER, 'UTC'],
    ['Etc/UTC', WINTER, 'UTC'],
    // no name in any locale: the offset stands in for it
    ['Asia/Tokyo', SUMMER, 'Tokyo time, GMT+9'],
    ['America/Argentina/Buenos_Aires', WINTER, 'Buenos Aires time, GMT-3'],
    ['Etc/GMT-3', WINTER, 'GMT+3'],
  ];
  for (const [zone, at, label] of cases) {
    test(`${zone} in ${at.toISOString().slice(0, 7)} -> ${label}`, () =>
      assert.equal(zoneLabel(zone, at), label));
  }

  test('the BST/GMT switch follows the instant, to the hour (last Sunday of March 2026, 01:00 UTC)', () => {
    assert.equal(zoneLabel('Europe/London', new Date('2026-03-29T00:59:00Z')), 'London time, GMT');
    assert.equal(zoneLabel('Europe/London', new Date('2026-03-29T01:00:00Z')), 'London time, BST');
  });

  test('an unknown zone is shown as its id rather than breaking the page', () => {
    assert.equal(zoneLabel('Nowhere/Atlantis', SUMMER), 'Nowhere/Atlantis');
  });

  test('every zone Intl knows gets "<city> time, <name>" with a letter name or a GMT offset', () => {
    const zones = Intl.supportedValuesOf('timeZone').filter((z) => z.includes('/') && !z.startsWith('Etc/'));
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.date({ min: WINTER, max: new Date('2030-12-31'), noInvalidDate: true }),
        (zone, at) => {
          const city = zone.split('/').at(-1)!.replace(/_/g, ' ');
          assert.match(
            zoneLabel(zone, at),
            new RegExp(
              `^${city.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} time, ([A-Z]{2,5}|GMT[+-]\\d{1,2}(:\\d{2})?)$`,
            ),
          );
        },
      ),
    );
  });
});
