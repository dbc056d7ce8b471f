// The lab's networks behind one interface (server/lab-networks.js): a capability is declared in
// the registry (common/setup/networks.js) and brought by the network, or neither.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labNetworks, twinPortNetwork } from '../server/lab-networks.js';
import { createLink } from '../server/link/link.js';

test('the lab link passes its registry entry: no loss, no capture, twin ports', async () => {
  const link = createLink();
  try {
    const networks = labNetworks([link]);
    assert.deepEqual(Object.keys(networks), ['link']);
    assert.equal(twinPortNetwork(networks).network, link);
    assert.equal(typeof twinPortNetwork(networks).relayTo, 'function');
  } finally {
    await link.close();
  }
});

test('a capability brought and not declared, or declared and not brought, is refused at once', async () => {
  const link = createLink();
  try {
    assert.throws(() => labNetworks([{ ...link, seedLoss: async () => {} }]), /lab link's seedLoss does not match its registry entry's carries\.loss/);
    assert.throws(() => labNetworks([{ ...link, relayTo: null }]), /lab link's relayTo does not match its registry entry's twinPorts/);
    assert.throws(() => labNetworks([{ ...link, capture: { start: async () => {}, stop: async () => ({}) } }]), /capture does not match its registry entry's capturesPackets/);
    assert.throws(() => labNetworks([{ ...link, id: 'devtools' }]), /devtools is not a network the lab sets/);
    assert.throws(() => twinPortNetwork({}), /no network of twin ports/);
  } finally {
    await link.close();
  }
});
