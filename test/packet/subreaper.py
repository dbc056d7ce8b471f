#!/usr/bin/env python3
# For test/packet-hostile.test.js: launch.py whose launcher dies just before launch.py's
# prctl(PR_SET_PDEATHSIG), under a subreaper (systemd --user, tini), must run nothing: no signal
# will come when the launcher is gone, so the packet network would outlive it. This process is
# the subreaper; its child stands for the launcher; the launcher's child loads launch.py (which
# records its launcher then) and runs its main() with prctl made to kill the launcher first and
# wait until the subreaper has adopted the orphan. The orphan's parent is then this process, not
# pid 1, which the check before issue 28 compared with.
#
#   python3 test/packet/subreaper.py server/packet/launch.py SIDES
#
# Prints "the command ran" if the command ran, then one JSON line: { exitCode } of launch.py.
import ctypes
import importlib.util
import json
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
sys.dont_write_bytecode = True  # no __pycache__ beside launch.py
libc = ctypes.CDLL(None, use_errno=True)


def orphan(launch_py, sides):
    """launch.py's main(), its launcher killed at its first prctl; never returns."""
    spec = importlib.util.spec_from_file_location('launch', launch_py)
    launch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(launch)
    launcher = os.getppid()
    real_call = launch.call
    killed = []

    def call(name, *args):
        if name == 'prctl' and args[0] == launch.PR_SET_PDEATHSIG and not killed:
            killed.append(launcher)
            os.kill(launcher, signal.SIGKILL)
            deadline = time.monotonic() + 5
            while os.getppid() == launcher and time.monotonic() < deadline:
                time.sleep(0.01)
        return real_call(name, *args)

    launch.call = call
    code = launch.main([sides, '--', sys.executable, '-c', 'print("the command ran", flush=True)'])
    os._exit(2 if code is None else code)


def main(launch_py, sides):
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), 'prctl(PR_SET_CHILD_SUBREAPER)')
    r, w = os.pipe()
    launcher = os.fork()
    if launcher == 0:
        os.close(r)
        pid = os.fork()
        if pid == 0:
            os.close(w)
            orphan(launch_py, sides)
        os.write(w, f'{pid}\n'.encode())
        os.close(w)
        signal.pause()  # until launch.py's stand-in kills this launcher
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        launched = int(f.readline())
    os.waitpid(launcher, 0)
    # Adopted now: this subreaper reaps it.
    _, status = os.waitpid(launched, 0)
    print(json.dumps({'exitCode': os.waitstatus_to_exitcode(status)}), flush=True)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
