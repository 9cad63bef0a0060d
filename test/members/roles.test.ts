// What each role may do: the one table pages ask through can() and canChangeMember().
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MEMBER_ROLES, type MemberRole } from '../../src/members/members.schema.ts';
import {
  can,
  canChangeMember,
  PERMISSIONS,
  ROLE_DESCRIPTIONS,
  type Permission,
} from '../../src/members/roles.ts';

const BUSINESS: Permission[] = [
  'events',
  'runners',
  'refunds',
  'confirmation_resends',
  'buyer_erasure',
  'exports',
  'buyer_contacts',
  'check_in',
];
const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

describe('can', () => {
  // Written out again here, so that a change to the table must be a change to this test too.
  const allowed: Record<MemberRole, Permission[]> = {
    owner: ['read', 'developer_settings', 'members', 'audit_log', ...BUSINESS, 'organization_settings'],
    admin: ['read', 'developer_settings', 'members', 'audit_log', ...BUSINESS],
    developer: ['read', 'developer_settings'],
    // exports without buyer_contacts: the viewer's files leave out buyers' email and phone
    viewer: ['read', 'exports'],
    // the check-in page only: not even reading the rest of the app
    checker: ['check_in'],
  };

  test('the table names exactly these permissions', () => {
    assert.deepEqual(
      [...PERMISSION_NAMES].sort(),
      ['read', 'developer_settings', 'members', 'audit_log', ...BUSINESS, 'organization_settings'].sort(),
    );
  });

  for (const role of MEMBER_ROLES) {
    test(`${role} may ${allowed[role].join(', ')} and nothing else`, () => {
      for (const permission of PERMISSION_NAMES) {
        assert.equal(can(role, permission), allowed[role].includes(permission), `${role} ${permission}`);
      }
    });
  }

  test('an unknown role may do nothing', () => {
    assert.equal(can('guest' as MemberRole, 'read'), false);
    assert.equal(can('toString' as MemberRole, 'read'), false);
  });

  test('every role has a one-line description', () => {
    for (const role of MEMBER_ROLES) {
      assert.match(ROLE_DESCRIPTIONS[role], /^[^\n]{10,120}$/);
    }
  });
});

describe('canChangeMember', () => {
  test('an owner may change or remove anyone, owners included', () => {
    for (const target of MEMBER_ROLES) {
      for (const next of [...MEMBER_ROLES, null]) assert.equal(canChangeMember('owner', target, next), true);
    }
  });

  test('an admin may not remove or demote an owner, nor make one', () => {
    assert.equal(canChangeMember('admin', 'owner', null), false);
    assert.equal(canChangeMember('admin', 'owner', 'admin'), false);
    assert.equal(canChangeMember('admin', 'viewer', 'owner'), false);
    assert.equal(canChangeMember('admin', 'viewer', 'developer'), true);
    assert.equal(canChangeMember('admin', 'admin', null), true);
  });

  test('developers and viewers may change no one', () => {
    for (const actor of ['developer', 'viewer'] as const) {
      for (const target of MEMBER_ROLES) assert.equal(canChangeMember(actor, target, 'viewer'), false);
    }
  });
});
