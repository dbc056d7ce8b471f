#!/usr/bin/env python3
# The hostile process on the browser side of the packet network, for test/packet/hostile.js (which
# starts it there before the lab, and speaks to it in JSON lines on stdin and stdout). As root of
# launch.py's user namespace it opens what no browser has: an AF_PACKET socket on the browser
# side's TUN device, which puts any bytes on it (the emulator reads exactly those), and a raw IP
# socket with IP_HDRINCL, whose kernel sends most headers as written. Python's standard library.
#
#   {"op": "send", "packets": [{"name", "hex", "raw"}]}   each on the device; `raw` ones also by IP_HDRINCL
#   {"op": "flood", "seconds", "hex", "uiPort", "everyMs"} the packet on the device as fast as this
#       process can, while GET /api/servers is asked from this side every everyMs
#   {"op": "get", "uiPort"}                                  one GET /api/servers from this side, as the page asks
#
# Every address is the server side's or in 198.19.0.0/16: neither side has a route anywhere else.
import http.client
import json
import os
import socket
import sys
import threading
import time

# Nothing of the server side's stays here: launch.py's descriptors (the TUN devices among them)
# came along through nsenter, and only the emulator may hold the devices.
os.closerange(3, 1 << 16)

DEVICE = 'h2lab-b'
SERVER_SIDE = '198.18.0.1'
ETH_P_IP = 0x0800
GET_TIMEOUT_S = 5  # through a flooded device a GET may wait that long; the next one tries again


def device_socket():
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
    s.bind((DEVICE, ETH_P_IP))
    return s


def tx_dropped():
    """Packets this side's kernel dropped at the device before the emulator read them."""
    with open('/proc/net/dev') as f:
        for line in f:
            if line.strip().startswith(DEVICE + ':'):
                return int(line.split(':')[1].split()[11])
    return None


def send(packets):
    device = device_socket()
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)  # IP_HDRINCL implied
    out = []
    for p in packets:
        packet = bytes.fromhex(p['hex'])
        ways = [('device', lambda: device.send(packet))]
        if p.get('raw'):
            # Routed by the header's own destination, as a raw socket's caller would aim it.
            to = socket.inet_ntoa(packet[16:20])
            ways.append(('raw', lambda: raw.sendto(packet, (to, 0))))
        for via, send_one in ways:
            try:
                send_one()
                out.append({'name': p['name'], 'via': via, 'sent': True})
            except OSError as e:
                out.append({'name': p['name'], 'via': via, 'sent': False, 'error': e.strerror})
    device.close()
    raw.close()
    return out


def get(ui_port):
    """GET /api/servers as the page asks it: over the UI link, off the device since issue 40 (the lab
    answers only to its own names: Host localhost)."""
    start = time.monotonic()
    try:
        conn = http.client.HTTPConnection(SERVER_SIDE, ui_port, timeout=GET_TIMEOUT_S)
        conn.request('GET', '/api/servers', headers={'Host': f'localhost:{ui_port}'})
        res = conn.getresponse()
        res.read()
        conn.close()
        return {'status': res.status, 'ms': (time.monotonic() - start) * 1000}
    except OSError as e:
        return {'status': None, 'ms': (time.monotonic() - start) * 1000, 'error': str(e)}


def flood(seconds, packet_hex, ui_port, every_ms):
    packet = bytes.fromhex(packet_hex)
    device = device_socket()
    counts = {'sent': 0, 'refused': 0}
    dropped_before = tx_dropped()
    start = time.monotonic()
    end = start + seconds

    def run():
        sent = refused = 0
        while time.monotonic() < end:
            for _ in range(1000):
                try:
                    device.send(packet)
                    sent += 1
                except OSError:
                    refused += 1  # the device's queue full (ENOBUFS): the flood goes on
        counts.update(sent=sent, refused=refused)

    sender = threading.Thread(target=run)
    sender.start()
    gets = []
    next_at = start
    while time.monotonic() < end:
        gets.append({'atMs': (time.monotonic() - start) * 1000, **get(ui_port)})
        next_at = max(next_at + every_ms / 1000, time.monotonic())
        time.sleep(max(0.0, min(next_at, end) - time.monotonic()))
    sender.join()
    elapsed = time.monotonic() - start
    device.close()
    return {**counts, 'seconds': elapsed, 'packetsPerSecond': counts['sent'] / elapsed, 'droppedByDevice': tx_dropped() - dropped_before, 'gets': gets}


def answer(request):
    op = request['op']
    if op == 'send':
        return {'results': send(request['packets'])}
    if op == 'flood':
        return flood(request['seconds'], request['hex'], request['uiPort'], request['everyMs'])
    if op == 'get':
        return get(request['uiPort'])
    return {'error': f'unknown op {op}'}


def main():
    print(json.dumps({'ready': True}), flush=True)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(answer(json.loads(line))), flush=True)


if __name__ == '__main__':
    main()
