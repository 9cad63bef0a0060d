// packages/sdk/src/openapi.ts must be what `npm run sdk:types` makes from the current routes: a
// route schema changed without regenerating the SDK's types fails here.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generateSdkTypes, openApiDocument, SDK_TYPES_FILE } from '../../scripts/sdk-types.ts';

// One service for both tests (it migrates an in-memory database first); each takes its own copy.
let served: Record<string, unknown>;
before(async () => {
  served = await openApiDocument();
});

test('the committed SDK types match a fresh generation from the OpenAPI document', async () => {
  const fresh = await generateSdkTypes(structuredClone(served));
  const committed = readFileSync(SDK_TYPES_FILE, 'utf8');
  assert.ok(fresh === committed, 'packages/sdk/src/openapi.ts is stale: run `npm run sdk:types`');
});

test('the generation follows the document: a changed schema changes the types', async () => {
  const document = structuredClone(served) as { paths: Record<string, Record<string, unknown>> };
  const events = document.paths['/v1/events']!;
  document.paths['/v1/events-renamed'] = events;
  delete document.paths['/v1/events'];
  const changed = await generateSdkTypes(document);
  assert.notEqual(changed, readFileSync(SDK_TYPES_FILE, 'utf8'));
  assert.match(changed, /'\/v1\/events-renamed'/);
});
