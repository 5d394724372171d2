#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the Daytona emulator on a loopback port chosen at run time.

  daytona_emulator.py --url-file FILE [--state-dir DIR] [--idle-exit S] [--max-life S]

It writes its base URL (http://127.0.0.1:PORT) to FILE once it listens; the
API is under /api, the toolbox proxy under /toolbox. It exits by itself after
--idle-exit seconds without a request or --max-life seconds in all, on
POST /_emulator/shutdown, or on SIGTERM/SIGINT, killing every command it
still runs and removing its state directory if it made it."""

import argparse
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

# No __pycache__ in the source tree: this runs from a checkout.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from emu.server import Server  # noqa: E402
from emu.store import Store  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url-file", required=True, help="where to write the base URL once listening")
    ap.add_argument("--state-dir", help="directory for sandbox files (default: a fresh temporary one)")
    # As long as --max-life: the fixture's stop (which checks for leaked
    # sandboxes) runs when ctest gets to it, which in a whole-suite run can
    # be more than ten minutes after the last Daytona test; an emulator
    # that left on its own before that failed the stop (seen in CI). An
    # orphan still goes at --max-life.
    ap.add_argument("--idle-exit", type=float, default=3600.0, help="exit after this many idle seconds")
    ap.add_argument("--max-life", type=float, default=3600.0, help="exit after this many seconds in all")
    args = ap.parse_args()

    own_state = args.state_dir is None
    state_dir = tempfile.mkdtemp(prefix="daytona-emu-") if own_state else args.state_dir
    store = Store(state_dir)
    srv = Server(("127.0.0.1", 0), store)
    started = time.monotonic()

    def stop(*_):
        srv.stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def watchdog():
        while not srv.stopping.wait(0.1):
            now = time.monotonic()
            if now - srv.last_activity > args.idle_exit:
                sys.stderr.write("emulator: idle for %.0f s, exiting\n" % args.idle_exit)
                break
            if now - started > args.max_life:
                sys.stderr.write("emulator: lived %.0f s, exiting\n" % args.max_life)
                break
        srv.shutdown()

    threading.Thread(target=watchdog, daemon=True).start()
    tmp = args.url_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(srv.base_url + "\n")
    os.replace(tmp, args.url_file)  # readers never see half a URL
    sys.stderr.write("emulator: listening on %s (pid %d)\n" % (srv.base_url, os.getpid()))
    sys.stderr.flush()
    try:
        srv.serve_forever(poll_interval=0.05)
    finally:
        store.shutdown()
        srv.server_close()
        if own_state:
            shutil.rmtree(state_dir, ignore_errors=True)
        try:
            os.remove(args.url_file)
        except OSError:
            pass
        sys.stderr.write("emulator: stopped\n")


if __name__ == "__main__":
    main()
