#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the conformance kit against a cloud backend's emulator.

  with_emulator.py e2b EMULATOR_PY WORK_DIR -- COMMAND ARGS...
  with_emulator.py daytona EMULATOR_DIR WORK_DIR -- COMMAND ARGS...

e2b: starts tests/e2b/emulator/e2bemu.py (that area has no ctest fixture:
each of its programs starts its own emulator) on loopback ports chosen at
run time, and stops it afterwards. daytona: uses the emulator that the
daytona_emulator fixture started (EMULATOR_DIR/url), under an API key of
this run's own, so the other daytona tests never see its sandboxes.

Either way it writes WORK_DIR/<backend>.yaml (the backend's settings
pointing at the emulator), sets the API key variable the backend reads to
a dummy key the emulator accepts, and runs COMMAND ARGS... --config FILE
<backend>://. The test fails if the command does, if a sandbox is left
alive in the emulator afterwards, or (e2b) if the emulator judged a
request of the backend's against E2B's spec."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

# Dummy keys in the shapes the emulators check; never real credentials.
E2B_KEY = "e2b_" + "0c0f" * 10
DAYTONA_KEY = "dtn_conformance_kit_" + "x" * 32


def http_json(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=20) as r:
        text = r.read()
    return json.loads(text) if text.strip() else None


def write_config(work, backend, settings):
    path = os.path.join(work, backend + ".yaml")
    with open(path, "w") as f:
        f.write("backends:\n  %s:\n    settings:\n" % backend)
        for k, v in settings:
            f.write("      %s: %s\n" % (k, v))
    return path


def run_kit(command, config, uri, env):
    sys.stdout.flush()
    return subprocess.call(command + ["--config", config, uri], env=env)


def e2b(emulator, work, command):
    env = dict(os.environ, E2B_EMU_API_KEY=E2B_KEY)
    for var in ("E2B_API_URL", "E2B_SANDBOX_URL", "E2B_DOMAIN"):
        env.pop(var, None)
    tmp = tempfile.mkdtemp(prefix="sbio-conf-e2b-")
    port_file = os.path.join(tmp, "ports")
    emu = subprocess.Popen([sys.executable, "-B", emulator, "--port-file", port_file, "--parent-pid",
                            str(os.getpid()), "--idle-timeout", "600"],
                           stdin=subprocess.DEVNULL, env=env)
    try:
        ports = None
        end = time.monotonic() + 20
        while time.monotonic() < end and emu.poll() is None:
            if os.path.exists(port_file):
                with open(port_file) as f:
                    ports = f.read().split()
                break
            time.sleep(0.05)
        if not ports or len(ports) != 2:
            print("with_emulator.py: the e2b emulator did not start", file=sys.stderr)
            return 1
        api = "http://127.0.0.1:%s" % ports[0]
        config = write_config(work, "e2b", [("api_url", api), ("sandbox_url", "http://127.0.0.1:%s" % ports[1])])
        kit_env = dict(env, E2B_API_KEY=E2B_KEY)
        del kit_env["E2B_EMU_API_KEY"]
        rc = run_kit(command, config, "e2b://base", kit_env)
        state = http_json("GET", api + "/__emu__/state")
        if state.get("live") != 0:
            print("with_emulator.py: LEAKED: %s sandbox(es) still alive in the e2b emulator" % state.get("live"))
            rc = rc or 1
        violations = http_json("GET", api + "/__emu__/violations").get("violations")
        if violations:
            print("with_emulator.py: the e2b emulator judged requests against the spec:\n"
                  + json.dumps(violations, indent=1))
            rc = rc or 1
        if state.get("live") == 0 and not violations:
            print("with_emulator.py: no sandbox left in the e2b emulator, no request against the spec")
        http_json("POST", api + "/__emu__/shutdown", {})
        return rc
    finally:
        try:
            emu.wait(timeout=10)
        except subprocess.TimeoutExpired:
            emu.kill()
            emu.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def daytona(emu_dir, work, command):
    try:
        with open(os.path.join(emu_dir, "url")) as f:
            url = f.read().strip()
    except OSError:
        print("with_emulator.py: no emulator URL in %s: is the daytona_emulator fixture running?" % emu_dir,
              file=sys.stderr)
        return 1
    config = write_config(work, "daytona", [("api_url", url + "/api")])
    env = dict(os.environ, DAYTONA_API_KEY=DAYTONA_KEY)
    for var in ("DAYTONA_API_URL", "DAYTONA_TARGET"):
        env.pop(var, None)
    rc = run_kit(command, config, "daytona://", env)
    sandboxes = http_json("GET", url + "/_emulator/sandboxes?apiKey=" + DAYTONA_KEY)
    left = [s for s in sandboxes if s.get("alive")]
    for s in left:
        print("with_emulator.py: LEAKED: daytona sandbox %s (state %s, labels %s)" % (s["id"], s["state"], s["labels"]))
    if not left:
        print("with_emulator.py: no sandbox of this run left in the daytona emulator")
    return rc or (1 if left else 0)


def main(argv):
    if len(argv) < 5 or argv[0] not in ("e2b", "daytona") or argv[3] != "--":
        print(__doc__, file=sys.stderr)
        return 64
    backend, where, work, command = argv[0], argv[1], argv[2], argv[4:]
    os.makedirs(work, exist_ok=True)
    return e2b(where, work, command) if backend == "e2b" else daytona(where, work, command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
