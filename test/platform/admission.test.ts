import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Fastify from 'fastify';
import { createAdmissionGate } from '../../src/platform/admission.ts';

/** A reply whose response closes when the test says so. */
function fakeReply() {
  const raw = Object.assign(new EventEmitter(), { closed: false });
  return {
    reply: { raw } as unknown as FastifyReply,
    close: () => {
      raw.closed = true;
      raw.emit('close');
    },
  };
}
const request = {} as FastifyRequest;

describe('admission gate', () => {
  test('admits up to the limit at once; the rest wait and go in arrival order as responses close', async () => {
    const gate = createAdmissionGate(2);
    const admitted: number[] = [];
    const replies = Array.from({ length: 5 }, fakeReply);
    const done = replies.map((r, i) => gate.admit(request, r.reply).then(() => admitted.push(i)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(admitted, [0, 1]);
    assert.equal(gate.active, 2);
    assert.equal(gate.waiting, 3);
    replies[1]!.close();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(admitted, [0, 1, 2]);
    replies[0]!.close();
    replies[2]!.close();
    await Promise.all(done);
    assert.deepEqual(admitted, [0, 1, 2, 3, 4]);
    replies[3]!.close();
    replies[4]!.close();
    assert.equal(gate.active, 0);
    assert.equal(gate.waiting, 0);
  });

  test('a request that fails or whose client goes away gives its place back', async () => {
    const gate = createAdmissionGate(1);
    const app = Fastify();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    app.post('/slow', { onRequest: gate.admit }, async () => {
      await held;
      return { ok: true };
    });
    app.post('/fails', { onRequest: gate.admit }, async () => {
      throw new Error('boom');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    try {
      const failed = await fetch(`${base}/fails`, { method: 'POST' });
      assert.equal(failed.status, 500);
      assert.equal(gate.active, 0);
      // A client that gives up while its request is being worked on.
      const aborted = new AbortController();
      const slow = fetch(`${base}/slow`, { method: 'POST', signal: aborted.signal }).catch(() => 'aborted');
      while (gate.active === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const queued = fetch(`${base}/fails`, { method: 'POST' });
      while (gate.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      aborted.abort();
      assert.equal(await slow, 'aborted');
      assert.equal((await queued).status, 500);
      release();
      assert.equal(gate.active, 0);
    } finally {
      release();
      await app.close();
    }
  });

  test('a client that leaves while waiting is dropped unworked and takes no place', async () => {
    const gate = createAdmissionGate(1);
    // The client may leave a connection it opened for an aborted request unused; close it too.
    const app = Fastify({ forceCloseConnections: true });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const handled: string[] = [];
    app.post('/work/:name', { onRequest: gate.admit }, async (request) => {
      const { name } = request.params as { name: string };
      handled.push(name);
      if (name === 'first') await held;
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    try {
      const first = fetch(`${base}/work/first`, { method: 'POST' });
      while (gate.active === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      // Two clients queue behind it and give up before their turn.
      const leaving = [new AbortController(), new AbortController()];
      const gaveUp = leaving.map((c, i) =>
        fetch(`${base}/work/gone${i}`, { method: 'POST', signal: c.signal }).catch(() => 'aborted'),
      );
      while (gate.waiting < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      for (const c of leaving) c.abort();
      assert.deepEqual(await Promise.all(gaveUp), ['aborted', 'aborted']);
      while (gate.waiting > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      release();
      assert.equal((await first).status, 200);
      // Their places were not lost: later requests get through, one after another.
      for (const name of ['later1', 'later2', 'later3']) {
        const res = await fetch(`${base}/work/${name}`, {
          method: 'POST',
          signal: AbortSignal.timeout(5000),
        });
        assert.equal(res.status, 200);
      }
      assert.deepEqual(handled, ['first', 'later1', 'later2', 'later3'], 'no work for clients that left');
      assert.equal(gate.active, 0);
      assert.equal(gate.waiting, 0);
    } finally {
      release();
      await app.close();
    }
  });
});
