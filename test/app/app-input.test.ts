// The app's inputs read through TypeBox: forms share the admin API's limits and put a message next
// to the field; a path parameter that does not fit is the 404 page; a query value that does not
// fit falls back, or is the 404 page where the page says so.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Name } from '../../src/admin/admin-schemas.ts';
import { DisplayName } from '../../src/admin/clients/client-admin.schema.ts';
import { EventCreateIn } from '../../src/admin/events/event-admin.schema.ts';
import { InvitationCreateIn } from '../../src/admin/invitations/invitation-admin.schema.ts';
import { CreateClientForm, EventForm, InviteMemberForm } from '../../src/app/app-forms.schema.ts';
import {
  ChoiceList,
  FormBody,
  limitOf,
  readChoices,
  readField,
  TextField,
  type FieldErrors,
} from '../../src/app/form-body.ts';
import { listApiClients } from '../../src/auth/clients.ts';
import { makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { makeMember, signIn, type Agent } from './app-helpers.ts';

describe('form schemas', () => {
  test('the forms take the admin API limits', () => {
    assert.equal(CreateClientForm.properties.name.maxLength, limitOf(Name, 'maxLength'));
    assert.equal(CreateClientForm.properties.display_name.maxLength, limitOf(DisplayName, 'maxLength'));
    assert.equal(
      InviteMemberForm.properties.email.maxLength,
      limitOf(InvitationCreateIn.properties.email, 'maxLength'),
    );
    for (const name of [
      'name',
      'description',
      'venue',
      'organizer_name',
      'cover',
      'timezone',
      'waiver_text',
    ] as const) {
      assert.equal(
        EventForm.properties[name].maxLength,
        limitOf(EventCreateIn.properties[name], 'maxLength'),
        name,
      );
    }
  });

  test('readField: trimmed when the field says, a message when missing or too long, cut to the limit', () => {
    const field = TextField({ label: 'Name', max: 5, trim: true, missing: 'Enter a name.' });
    const read = (text: string) => {
      const errors: FieldErrors = {};
      return { value: readField(FormBody.parse(text), 'name', field, errors), errors };
    };
    assert.deepEqual(read('name=%20Ann%20'), { value: 'Ann', errors: {} });
    assert.deepEqual(read('name=%20%20'), { value: '', errors: { name: 'Enter a name.' } });
    assert.deepEqual(read(''), { value: '', errors: { name: 'Enter a name.' } });
    assert.deepEqual(read('name=abcdefgh'), {
      value: 'abcde',
      errors: { name: 'Name must be at most 5 characters.' },
    });
    const optional = TextField({ label: 'Venue', max: 3, required: false });
    const errors: FieldErrors = {};
    assert.equal(readField(FormBody.parse('venue='), 'venue', optional, errors), '');
    assert.equal(readField(FormBody.parse('other=x'), 'venue', optional, errors), '');
    assert.deepEqual(errors, {});
    assert.equal(readField(FormBody.parse('venue=%20ab%20'), 'venue', optional, errors), ' ab');
    assert.deepEqual(errors, { venue: 'Venue must be at most 3 characters.' });
  });

  test('readChoices: each choice once and at most the limit, a message when none is checked or one is not a choice', () => {
    const field = ChoiceList({
      label: 'Sizes',
      choices: ['s', 'm', 'l'],
      max: 2,
      missing: 'Choose a size.',
      unknown: 'Choose sizes from the list.',
    });
    const read = (text: string) => {
      const errors: FieldErrors = {};
      return { value: readChoices(FormBody.parse(text), 'size', field, errors), errors };
    };
    assert.deepEqual(read('size=m&size=s&size=m'), { value: ['m', 's'], errors: {} });
    assert.deepEqual(read('other=s'), { value: [], errors: { size: 'Choose a size.' } });
    const unknown = { size: 'Choose sizes from the list.' };
    assert.deepEqual(read('size=m&size=xl'), { value: ['m'], errors: unknown });
    assert.deepEqual(read('size=s&size=m&size=l'), { value: ['s', 'm'], errors: unknown });
  });
});

describe('inputs on the pages', () => {
  let h: Harness;
  let partner: TestPartner;
  let owner: Agent;

  before(async () => {
    h = await startHarness();
    partner = await makePartner(h);
    owner = await signIn(h, await makeMember(h, partner.organizationId, 'owner'));
  });
  after(() => h.close());

  test('a client name over the admin API limit is refused next to its field, nothing made', async () => {
    const before = (await listApiClients(h.service.ctx.database.db, partner.organizationId)).length;
    await owner.get('/developers/clients/new');
    const res = await owner.post('/developers/clients', {
      name: 'x'.repeat(limitOf(Name, 'maxLength') + 1),
      scopes: ['events:read'],
    });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, new RegExp(`Name must be at most ${limitOf(Name, 'maxLength')} characters\\.`));
    assert.equal((await listApiClients(h.service.ctx.database.db, partner.organizationId)).length, before);
  });

  test('a path parameter of the wrong shape is the 404 page', async () => {
    for (const url of [
      '/orders/not-an-order',
      '/orders/ord_x/refund',
      '/events/evt_%00%00%00%00%00%00%00%00',
      '/developers/clients/cli_' + 'a'.repeat(80),
      '/members/evt_ZZZZZZZZZZZZZZZZZZZZZZZZ/remove',
    ]) {
      const res = await owner.get(url);
      assert.equal(res.statusCode, 404, url);
      assert.match(res.body, /<html/, url);
    }
  });

  test('a query value that does not fit falls back to the default page', async () => {
    for (const url of [
      '/orders?status=paid&status=pending',
      '/audit-log?before=x&before=y',
      '/members?done=a&done=b',
    ]) {
      const res = await owner.get(url);
      assert.equal(res.statusCode, 200, url);
    }
  });

  test('an overview for an event id that cannot be one is the 404 page', async () => {
    for (const url of [
      '/?event=nonsense',
      '/?event=evt_ZZZZZZZZZZZZZZZZZZZZZZZZ&event=evt_YYYYYYYYYYYYYYYYYYYYYYYY',
    ]) {
      const res = await owner.get(url);
      assert.equal(res.statusCode, 404, url);
    }
  });

  test('a choice the schema does not take is the form again, or the 404 page for a hidden list name', async () => {
    await owner.get('/members');
    const invite = await owner.post('/members/invitations', { email: 'choice@example.org', role: 'root' });
    assert.equal(invite.statusCode, 422);
    assert.match(invite.body, /Choose a role from the list\./);
    await owner.get('/developers');
    const list = await owner.post(`/developers/clients/${partner.clientId}/domains/add`, {
      list: 'every_domain',
      allowed_domain: 'https://shop.example.org',
    });
    assert.equal(list.statusCode, 404);
  });
});
