import { describe, expect, it } from 'vitest';
import { packetCountsText } from './network-check.js';

const direction = { delivered: 1200, deliveredBytes: 0, droppedByLoss: 3, droppedByQueue: 0, unshaped: 0, onLink: 0 };

describe('packetCountsText', () => {
  it('names drops at a device and refusals by the receiver only where there were some', () => {
    expect(packetCountsText({ down: direction, up: direction })).toBe('packets delivered 1,200 down / 1,200 up, lost 3 / 3, queue-dropped 0 / 0');
    expect(packetCountsText({ down: { ...direction, droppedByReceiver: 0 }, up: { ...direction, droppedByReceiver: 2, droppedByDevice: 5 } })).toBe(
      'packets delivered 1,200 down / 1,200 up, lost 3 / 3, queue-dropped 0 / 0, device-dropped 0 / 5, refused by the receiver 0 / 2',
    );
  });
});
