#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Starts and stops the Daytona emulator for a ctest fixture.

  emulator_ctl.py start DIR   start it in the background; DIR/url holds its base URL
  emulator_ctl.py stop DIR    fail if any sandbox is still alive in it, then stop it

`stop` is where "no sandbox leaked" is checked: every test that created a
sandbox must have destroyed it, whatever happened in between."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def _pid(d):
    try:
        with open(os.path.join(d, "pid")) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def _wait_gone(pid, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:  # reap it if it is our child; otherwise poll
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            if not _alive(pid):
                return True
        time.sleep(0.05)
    return False


def _kill(pid):
    if pid and _alive(pid):
        os.kill(pid, signal.SIGTERM)
        if not _wait_gone(pid, 5):
            os.kill(pid, signal.SIGKILL)


def start(d):
    os.makedirs(d, exist_ok=True)
    _kill(_pid(d))  # a previous run's emulator, if one survived
    url_file = os.path.join(d, "url")
    for f in (url_file, os.path.join(d, "pid")):
        if os.path.exists(f):
            os.remove(f)
    log = open(os.path.join(d, "emulator.log"), "ab")
    p = subprocess.Popen(
        [sys.executable, "-B", os.path.join(HERE, "daytona_emulator.py"), "--url-file", url_file],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    with open(os.path.join(d, "pid"), "w") as f:
        f.write(str(p.pid))
    end = time.monotonic() + 15
    while time.monotonic() < end:
        if os.path.exists(url_file):
            with open(url_file) as f:
                print("emulator at " + f.read().strip())
            return 0
        if p.poll() is not None:
            break
        time.sleep(0.05)
    print("the emulator did not start; see " + os.path.join(d, "emulator.log"), file=sys.stderr)
    _kill(p.pid)
    return 1


def stop(d):
    pid = _pid(d)
    try:
        with open(os.path.join(d, "url")) as f:
            url = f.read().strip()
    except OSError:
        print("no emulator is running in " + d, file=sys.stderr)
        return 1
    rc = 0
    try:
        with urllib.request.urlopen(url + "/_emulator/sandboxes", timeout=10) as r:
            sandboxes = json.load(r)
        left = [s for s in sandboxes if s["alive"]]
        print("%d sandboxes were created, %d left alive" % (len(sandboxes), len(left)))
        for s in left:
            print("LEAKED: sandbox %s (%s, state %s, labels %s)" % (s["id"], s["name"], s["state"], s["labels"]))
            rc = 1
        req = urllib.request.Request(url + "/_emulator/shutdown", data=b"{}", method="POST")
        urllib.request.urlopen(req, timeout=10).close()
    except OSError as e:
        print("could not talk to the emulator at %s: %s" % (url, e), file=sys.stderr)
        rc = 1
    if pid and not _wait_gone(pid, 10):
        _kill(pid)
    return rc


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    sys.exit(start(sys.argv[2]) if sys.argv[1] == "start" else stop(sys.argv[2]))
