#!/usr/bin/env python3
# The packet network's launcher: makes the two network namespaces without root and runs a
# command on the server side of them.
#
#   python3 server/packet/launch.py SIDES -- node runner/commands/experiments.js --network packet ...
#   python3 server/packet/launch.py SIDES --probe   (exit 0 when it can run here, else one line, exit 2)
#   python3 server/packet/launch.py SIDES --loopback -- COMMAND …   (and --loopback --probe)
#
# With --loopback it makes the user, network and PID namespaces alone, no TUN device and no second
# side: the command runs on a loopback of its own, which no other user of the machine can reach or
# enter (runner/browsers/session.js puts Firefox's lab there, so its WebDriver BiDi port is the runner's).
#
# SIDES is server/packet/sides.js's launcherSides(), as JSON: the sides' addresses, device names and
# the variables that name the descriptors, so each fact has one place (launcher.js passes it).
#
# It unshares a user namespace (the current user mapped to root), a network namespace (the SERVER
# side) and a PID namespace. In the server side: lo up, the server's TUN device with its address,
# the browser's as peer. Then it makes the BROWSER side (a second network namespace, entered and
# left again with setns): lo up, its TUN device the other way round. Neither side rate-limits ICMP errors
# (ICMP_RATEMASK). Each side's route to the other sets TCP's
# congestion control (TCP_CONGESTION). The server side also takes a block of addresses as its own
# (SIDES' origins: a replay's recorded origins, an address each), which the browser side routes over
# its TUN device. Neither side has a default route, so nothing inside can reach any address but
# loopback, the peer and that block (RFC 2544's benchmarking range only).
# Beside the TUN devices, a veth pair joins the sides for the lab UI's TCP alone (SIDES' uiLink,
# server/packet/ui-link.js): no address of its own, a route over it in a table nothing looks up
# until the lab adds its rules, and strict reverse-path filtering, so nothing else crosses it.
#
# The command runs in the server side with the two TUN descriptors and a descriptor of the browser
# side's namespace inherited, named by the variables SIDES names; it takes them at once so that none of its children inherits them
# (server/packet/inside.js: the emulator alone gets the devices).
#
# Cleanup is the kernel's: the first process of the PID namespace (pid 1, this script's child)
# waits for the command, and when it exits the kernel kills every process left in the namespace
# (Caddy, Chromium, the emulator), which closes the last descriptors of the TUN devices and of
# both network namespaces, so they vanish too. pid 1 dies with its parent (PR_SET_PDEATHSIG), and
# the parent forwards SIGINT, SIGTERM and SIGHUP to the command: Ctrl-C, kill and a crash of
# anything inside leave nothing behind. Python's standard library only; nothing to compile.
import ctypes
import fcntl
import json
import os
import shutil
import signal
import struct
import subprocess
import sys

# The process that started this one, as early as it can be read: main() compares it with the
# parent after PR_SET_PDEATHSIG. A launcher that died before then is no longer the parent, and
# the new one is pid 1 or, under a subreaper (systemd --user, tini, a container's init), any pid.
LAUNCHER_PID = os.getppid()

CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
TUNSETIFF, IFF_TUN, IFF_NO_PI = 0x400454CA, 0x0001, 0x1000
PR_SET_PDEATHSIG = 1
# Far above what Node's children get as stdio (a browser's DevTools pipe is fds 3 and 4), so no
# spawn overwrites them in a grandchild that needs them.
FIRST_FD = 100
# The devices' kernel queues, in packets: far more than a burst the lab sends (the emulator reads
# at once; the emulated queue is its own, server/path/queue.js).
TX_QUEUE_PACKETS = 10_000
# TCP's congestion control on the path, whatever the machine's default (net.ipv4.tcp_congestion_
# control, which a new namespace inherits and may not set to cubic without root outside it: the
# route's congctl may). The QUIC servers run CUBIC (quic-go has nothing else), so HTTP/2 and
# HTTP/3 meet loss with the same rule; under a host default of BBR, which ignores random loss,
# TCP took 2.4 s for 1 MiB at Fast 4G and 2 % loss and QUIC 6.9 s (docs/throttling.md, accuracy).
TCP_CONGESTION = 'cubic'
# The ICMP types each side's kernel rate-limits (net.ipv4.icmp_ratemask, default 6168: destination
# unreachable among them): none. A hold (server/fronts/caddy.js) ends Chromium's old QUIC
# connection by the ICMP port unreachable its next datagram draws from the closed port, so every
# one must arrive. Loopback is exempt from the limit, the TUN path is not: after a burst of 6 the
# kernel sent one a second per destination, and the next cold HTTP/3 request waited for QUIC's
# probe timeout (test/packet.test.js). The mask exempts from the per-destination limit
# (icmp_ratelimit) and the global one (icmp_msgs_per_sec) alike, and unlike icmp_msgs_per_sec
# (host-wide before Linux 6.12) it is each namespace's own.
ICMP_RATEMASK = 0

libc = ctypes.CDLL(None, use_errno=True)


class Refused(Exception):
    """What is missing, and the fix, in one line."""


def call(name, *args):
    if getattr(libc, name)(*args) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f'{name}: {os.strerror(err)}')


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def enter_user_namespace():
    uid, gid = os.getuid(), os.getgid()
    try:
        call('unshare', CLONE_NEWUSER | CLONE_NEWNET)
    except OSError as e:
        raise Refused(f'user namespaces are refused here ({e.strerror}): allow them (sysctl kernel.unprivileged_userns_clone=1, '
                      'or on Ubuntu 23.10+ kernel.apparmor_restrict_unprivileged_userns=0) or run as root') from e
    write('/proc/self/setgroups', 'deny')
    write('/proc/self/uid_map', f'0 {uid} 1')
    write('/proc/self/gid_map', f'0 {gid} 1')


def ip(*args):
    done = subprocess.run(['ip', *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise Refused(f'ip {" ".join(args)} failed: {done.stderr.strip()}')


def open_tun(name, address, peer):
    """A TUN device in the current network namespace, up, with its descriptor."""
    try:
        fd = os.open('/dev/net/tun', os.O_RDWR)
        fcntl.ioctl(fd, TUNSETIFF, struct.pack('16sH', name.encode(), IFF_TUN | IFF_NO_PI))
    except OSError as e:
        why = 'the namespace holds no capabilities (Ubuntu 23.10+: sysctl kernel.apparmor_restrict_unprivileged_userns=0)' \
            if e.errno == 1 else 'load the tun module (modprobe tun) or give the container /dev/net/tun'
        raise Refused(f'cannot open a TUN device ({e.strerror}): {why}') from e
    # IPv4 only: IPv6 would send router solicitations and MLD reports through the emulator's counters.
    ipv6 = f'/proc/sys/net/ipv6/conf/{name}/disable_ipv6'
    if os.path.exists(ipv6):
        write(ipv6, '1')
    ip('addr', 'add', address, 'peer', peer, 'dev', name, 'noprefixroute')
    # A burst the emulator has not read yet waits in the kernel instead of being dropped there,
    # uncounted: at the default 500 packets, 1,000 resets sent at once lost half of them.
    ip('link', 'set', name, 'txqueuelen', str(TX_QUEUE_PACKETS), 'up')
    route_to(peer, name, address)
    return fd


def route_to(peer, name, address):
    """The route to the other side, whose TCP connections use TCP_CONGESTION."""
    try:
        ip('route', 'add', peer, 'dev', name, 'src', address, 'congctl', TCP_CONGESTION)
    except Refused as e:
        raise Refused(f'{e}: TCP congestion control {TCP_CONGESTION} is missing here (modprobe tcp_{TCP_CONGESTION})') from e


def set_up_namespace():
    """What each side's network namespace needs before its TUN device."""
    ip('link', 'set', 'lo', 'up')
    try:
        write('/proc/sys/net/ipv4/icmp_ratemask', str(ICMP_RATEMASK))
    except OSError as e:
        raise Refused(f'cannot lift the ICMP rate limit in the namespace ({e.strerror}): give the container a writable /proc/sys') from e


def ui_link_end(link, here, there, address, peer):
    """This namespace's end of the UI link (made by make_sides), up, with the route to the peer in the link's table."""
    name = link[here]['device']
    ipv6 = f'/proc/sys/net/ipv6/conf/{name}/disable_ipv6'
    if os.path.exists(ipv6):
        write(ipv6, '1')  # no link-local IPv6 path between the sides past the emulator
    # Strict: a packet arriving on the link is taken only if the route back to its source leaves by
    # the link, which the lab's rules make true of the UI's TCP alone. The kernel applies the larger
    # of 'all' and the device's value, and a namespace inherits 'all' from the host (2, loose, on
    # some distributions): both are set. On the TUN devices strict changes nothing the path carries
    # (the route back to the other side is the device), and TCP of the UI's port arriving there,
    # whose way back is the link, is dropped.
    for conf in ('all', name):
        write(f'/proc/sys/net/ipv4/conf/{conf}/rp_filter', '1')
    ip('link', 'set', name, 'up')
    ip('neigh', 'replace', peer, 'lladdr', link[there]['mac'], 'dev', name, 'nud', 'permanent')
    ip('route', 'add', peer, 'dev', name, 'src', address, 'table', str(link['table']))


def make_ui_link(link, server_ns):
    """The UI link's pair, made on the browser side with its other end in the server side."""
    try:
        ip('link', 'add', link['browser']['device'], 'address', link['browser']['mac'], 'type', 'veth',
           'peer', 'name', link['server']['device'], 'address', link['server']['mac'], 'netns', f'/proc/{os.getpid()}/fd/{server_ns}')
    except Refused as e:
        raise Refused(f'{e}: the packet network needs veth devices (modprobe veth)') from e


def make_sides(sides):
    """Both sides' TUN descriptors and the browser side's namespace descriptor; ends in the server side."""
    server, browser, link = sides['server'], sides['browser'], sides['uiLink']
    set_up_namespace()
    server_tun = open_tun(server['device'], server['address'], browser['address'])
    # A replay's origins, an address each: all the server side's own (a local route, as for
    # loopback), reached from the browser side over its TUN device.
    ip('route', 'add', 'local', sides['origins'], 'dev', 'lo')
    server_ns = os.open('/proc/self/ns/net', os.O_RDONLY)
    call('unshare', CLONE_NEWNET)
    set_up_namespace()
    browser_tun = open_tun(browser['device'], browser['address'], server['address'])
    route_to(sides['origins'], browser['device'], browser['address'])
    browser_ns = os.open('/proc/self/ns/net', os.O_RDONLY)
    make_ui_link(link, server_ns)
    ui_link_end(link, 'browser', 'server', browser['address'], server['address'])
    call('setns', server_ns, CLONE_NEWNET)
    os.close(server_ns)
    ui_link_end(link, 'server', 'browser', server['address'], browser['address'])
    return server_tun, browser_tun, browser_ns


def high(fds):
    moved = []
    for i, fd in enumerate(fds):
        target = FIRST_FD + i
        os.dup2(fd, target, inheritable=True)
        os.close(fd)
        moved.append(target)
    return moved


def check_tools(loopback):
    what = 'a loopback of its own' if loopback else 'the packet network'
    if sys.platform != 'linux':
        raise Refused(f'{what} needs Linux (network namespaces and TUN devices), not {sys.platform}')
    if not shutil.which('ip'):
        raise Refused(f'{what} needs ip from iproute2: apt-get install -y iproute2')
    if not shutil.which('nsenter'):
        raise Refused(f'{what} needs nsenter and unshare from util-linux: apt-get install -y util-linux')
    if not loopback and not os.path.exists('/dev/net/tun'):
        raise Refused('there is no /dev/net/tun: load the tun module (modprobe tun) or give the container the device')


def forward_signals(pid):
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, _frame: os.kill(pid, s))


def exit_like(status):
    code = os.waitstatus_to_exitcode(status)
    os._exit(128 - code if code < 0 else code)


def wait_for(pid):
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            return status
        except ChildProcessError:
            return 0
        except InterruptedError:
            continue


def init(command, fds, launcher_alive, variables):
    """pid 1 of the namespace: runs the command, reaps orphans, exits with the command's code.
    fds: the TUN and namespace descriptors, none on a loopback of its own."""
    call('prctl', PR_SET_PDEATHSIG, signal.SIGKILL)
    # The launcher holds the pipe's other end: EOF means it died before prctl took effect.
    os.set_blocking(launcher_alive, False)
    try:
        if os.read(launcher_alive, 1) == b'':
            os._exit(1)
    except BlockingIOError:
        pass
    os.close(launcher_alive)
    names = (variables['serverTunFd'], variables['browserTunFd'], variables['browserNetnsFd'])
    env = dict(os.environ, **{name: str(fd) for name, fd in zip(names, fds)},
               **{variables['inside']: 'packet' if fds else 'loopback'})
    child = subprocess.Popen(command, env=env, pass_fds=fds)
    # The command holds them now; pid 1 keeps none (it would hold the devices past the emulator).
    for fd in fds:
        os.close(fd)
    forward_signals(child.pid)
    while True:
        # Reap every orphan (pid 1's job) until the command itself is gone.
        pid, status = os.wait()
        if pid == child.pid:
            exit_like(status)


def read_sides(given):
    """SIDES as launcher.js passes it, or None when it is missing or not that JSON."""
    try:
        sides = json.loads(given[0])
        for side in ('server', 'browser'):
            if not (isinstance(sides[side]['address'], str) and isinstance(sides[side]['device'], str)):
                return None
        if not all(isinstance(sides['variables'][k], str) for k in ('serverTunFd', 'browserTunFd', 'browserNetnsFd', 'inside')):
            return None
        link = sides['uiLink']
        if not (isinstance(link['table'], int) and all(isinstance(link[s][k], str) for s in ('server', 'browser') for k in ('device', 'mac'))):
            return None
        if not isinstance(sides['origins'], str):
            return None
        return sides
    except (IndexError, ValueError, KeyError, TypeError):
        return None


def main(argv):
    try:
        sides = read_sides(argv[:1])
        loopback = argv[1:2] == ['--loopback']
        argv = argv[2:] if loopback else argv[1:]
        if sides is None or not (argv == ['--probe'] or (len(argv) >= 2 and argv[0] == '--')):
            print('usage: launch.py SIDES [--loopback] -- COMMAND [ARGS…] | launch.py SIDES [--loopback] --probe '
                  '(SIDES: server/packet/sides.js launcherSides())', file=sys.stderr)
            return 2
        check_tools(loopback)
        if argv == ['--probe']:
            enter_user_namespace()
            for fd in [] if loopback else make_sides(sides):
                os.close(fd)
            return 0
        # The command's launcher (npm run chrome, the runner) killed outright takes this process
        # along, and pid 1 below follows it: nothing of the packet network outlives its launcher.
        call('prctl', PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != LAUNCHER_PID:
            return 1  # the launcher died before prctl took effect: no signal will come
        enter_user_namespace()
        if loopback:
            set_up_namespace()
        fds = [] if loopback else high(make_sides(sides))
        # Last: the next fork is pid 1 of the new PID namespace (ip's forks above must come first).
        call('unshare', CLONE_NEWPID)
    except Refused as e:
        print(f'h2lab packet network: {e}', file=sys.stderr)
        return 2
    # pid 1 gets a group of its own, so a signal to this process's group (Ctrl-C when this runs in a
    # terminal's foreground) reaches the command once, forwarded through pid 1. launcher.js starts
    # this process in a group of its own and forwards the signals itself.
    alive_r, alive_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(alive_w)
        os.setpgid(0, 0)
        try:
            init(argv[1:], fds, alive_r, sides['variables'])
        except BaseException as e:  # noqa: BLE001 pid 1 must never outlive the command quietly
            print(f'h2lab packet network: {e}', file=sys.stderr)
        os._exit(1)
    os.close(alive_r)
    for fd in fds:
        os.close(fd)
    forward_signals(pid)
    exit_like(wait_for(pid))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
