#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Docker backend benchmark: sandboxio vs the docker CLI vs docker-py (and,
for the warm exec, the raw Engine API from C), on one engine in one run.
Prints a markdown report (docs/performance.md has one).

Run it through bench/docker/run.sh, which starts a private engine, builds
the client, and passes the arguments below.
"""
import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import threading
import time

import docker  # Debian: python3-docker

HARDENING = ["--network", "none", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
             "--pids-limit", "512", "--memory", "512m", "--memory-swap", "512m", "--cpus", "1", "--init"]
SDK_HARDENING = dict(network_mode="none", cap_drop=["ALL"], security_opt=["no-new-privileges"],
                     pids_limit=512, mem_limit="512m", memswap_limit="512m", nano_cpus=10**9, init=True)


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def self_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed_runs(n, fn):
    """Median/p90 wall ms of fn() over n runs (after one warm-up)."""
    fn()
    walls = []
    for _ in range(n):
        t0 = time.monotonic()
        fn()
        walls.append(time.monotonic() - t0)
    walls.sort()
    return statistics.median(walls) * 1e3, walls[int(len(walls) * 0.9) - 1 if len(walls) > 1 else 0] * 1e3


def measure_cmd(n, argv_fn):
    """Wall and child CPU per operation of a command line (or a list of them)."""
    def once():
        for argv in argv_fn():
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    once()
    c0 = child_cpu()
    med, p90 = timed_runs(n, once)
    # timed_runs did one extra warm-up call: n + 1 operations.
    return {"median_ms": med, "p90_ms": p90, "cpu_ms_per_op": (child_cpu() - c0) / (n + 1) * 1e3}


def measure_interleaved(n, argv_fns):
    """measure_cmd for several command lines, run in turn within each round
    (the first to go rotates), so that the engine's and the machine's drift
    over the run falls on every client alike: a ratio between them is then
    taken under the same conditions."""
    def once(argv_fn):
        c0, t0 = child_cpu(), time.monotonic()
        for argv in argv_fn():
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.monotonic() - t0, child_cpu() - c0
    for fn in argv_fns:
        once(fn)  # warm-up
    walls = [[] for _ in argv_fns]
    cpus = [0.0 for _ in argv_fns]
    for i in range(n):
        for k in range(len(argv_fns)):
            j = (i + k) % len(argv_fns)
            wall, cpu = once(argv_fns[j])
            walls[j].append(wall)
            cpus[j] += cpu
    out = []
    for w, c in zip(walls, cpus):
        w.sort()
        out.append({"median_ms": statistics.median(w) * 1e3, "p90_ms": w[int(len(w) * 0.9) - 1 if len(w) > 1 else 0] * 1e3,
                    "cpu_ms_per_op": c / n * 1e3})
    return out


def measure_py(n, fn):
    fn()
    c0 = self_cpu()
    med, p90 = timed_runs(n, fn)
    return {"median_ms": med, "p90_ms": p90, "cpu_ms_per_op": (self_cpu() - c0) / (n + 1) * 1e3}


def sbio_bench(args, mode, n):
    out = subprocess.run([args.sbio_bench, args.config, mode, str(n)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", required=True)
    ap.add_argument("--image", required=True)
    ap.add_argument("--sbio", required=True)
    ap.add_argument("--sbio-bench", required=True)
    ap.add_argument("--raw-exec", required=True)
    ap.add_argument("--raw-run", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("-n", type=int, default=15)
    ap.add_argument("--bytes", type=int, default=256 << 20)
    ap.add_argument("--concurrent", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3, help="bursts per client in the concurrency rows")
    args = ap.parse_args()
    sock = args.host[len("unix://"):]
    env = dict(os.environ, DOCKER_HOST=args.host)
    os.environ["DOCKER_HOST"] = args.host
    cli = ["docker", "-H", args.host]
    client = docker.DockerClient(base_url=args.host)
    n = args.n
    rows = []

    # ---- create -> exec -> destroy
    # `sbio run` and `docker run --rm` are the pair, and raw_run.c
    # (the same container, the least any client can do) is their floor:
    # interleaved, so that the three ratios are taken under one engine's
    # conditions.
    sbio_run, docker_rm, raw_run = measure_interleaved(n, [
        lambda: [[args.sbio, "--config", args.config, "run", "--backend", "docker", "--", "true"]],
        lambda: [cli + ["run", "--rm"] + HARDENING + [args.image, "true"]],
        lambda: [[args.raw_run, sock, args.image]]])
    sbio_lib = sbio_bench(args, "cycle", n)

    def cli_three():
        name = "sbio-bench-%d" % time.monotonic_ns()
        return [cli + ["run", "-d", "--name", name] + HARDENING + [args.image, "sleep", "60"],
                cli + ["exec", name, "true"], cli + ["rm", "-f", name]]
    docker_three = measure_cmd(n, cli_three)

    def sdk_cycle():
        c = client.containers.run(args.image, ["sleep", "60"], detach=True, **SDK_HARDENING)
        c.exec_run(["true"])
        c.remove(force=True)
    sdk = measure_py(n, sdk_cycle)
    rows.append(("create → exec → destroy", [
        ("`sbio run -- true`", sbio_run), ("libsandboxio in-process", sbio_lib),
        ("`docker run --rm IMAGE true`", docker_rm), ("`docker run -d` + `docker exec` + `docker rm -f`", docker_three),
        ("docker-py run/exec_run/remove", sdk),
        ("floor: one-shot from C, no HTTP library (`raw_run.c`)", raw_run)]))

    # ---- warm exec round trip
    warm = client.containers.run(args.image, ["sleep", "600"], detach=True, **SDK_HARDENING)
    sbio_warm = sbio_bench(args, "warm", n * 3)
    out = subprocess.run([args.raw_exec, sock, warm.id, str(n * 3)], check=True, capture_output=True, text=True)
    raw_warm = json.loads(out.stdout.strip().splitlines()[-1])
    cli_warm = measure_cmd(n * 3, lambda: [cli + ["exec", warm.id, "true"]])
    sdk_warm = measure_py(n * 3, lambda: warm.exec_run(["true"]))
    # The raw API comes first: the ratios are then against the floor that
    # sandboxio's exec is held to (the target is its own row's ratio).
    rows.append(("exec round trip, warm sandbox", [
        ("raw Engine API from C (libcurl, `raw_exec.c`)", raw_warm),
        ("libsandboxio `sbio_sandbox_exec`", sbio_warm), ("`docker exec C true`", cli_warm),
        ("docker-py `exec_run`", sdk_warm)]))

    # ---- throughput
    script = "head -c %d /dev/zero" % args.bytes
    tp = []
    s = sbio_bench(args, "stream", args.bytes)
    tp.append(("libsandboxio exec, output callback", s["seconds"], s["cpu_s"]))
    c0, t0 = child_cpu(), time.monotonic()
    subprocess.run(cli + ["exec", warm.id, "sh", "-c", script], check=True, stdout=subprocess.DEVNULL)
    tp.append(("`docker exec C head -c ... > /dev/null`", time.monotonic() - t0, child_cpu() - c0))
    created = subprocess.run(["curl", "-s", "--unix-socket", sock, "-H", "Content-Type: application/json", "-d",
                              json.dumps({"AttachStdout": True, "AttachStderr": True, "Cmd": ["sh", "-c", script]}),
                              "http://localhost/v1.41/containers/%s/exec" % warm.id],
                             check=True, capture_output=True, text=True)
    exec_id = json.loads(created.stdout)["Id"]
    c0, t0 = child_cpu(), time.monotonic()
    subprocess.run(["curl", "-s", "--unix-socket", sock, "-H", "Content-Type: application/json",
                    "-H", "Connection: Upgrade", "-H", "Upgrade: tcp", "-d", '{"Detach":false,"Tty":false}',
                    "--output", "/dev/null", "http://localhost/v1.41/exec/%s/start" % exec_id], check=True)
    tp.append(("raw `curl` on the socket (frames not parsed)", time.monotonic() - t0, child_cpu() - c0))
    warm.remove(force=True)

    # ---- concurrency
    # Each client's burst runs `rounds` times, the first to go rotating, and
    # the median is reported: a burst that follows the 256 MiB stream or
    # another client's burst meets an engine still removing containers, and
    # a fixed order gave that cost to whichever client came first.
    k = args.concurrent

    def sbio_burst():
        s = sbio_bench(args, "concurrent", k)
        return s["wall_s"], s["cpu_s"], s["ok"]

    def cli_burst():
        c0, t0 = child_cpu(), time.monotonic()
        procs = [subprocess.Popen(cli + ["run", "--rm"] + HARDENING + [args.image, "true"], stdout=subprocess.DEVNULL)
                 for _ in range(k)]
        ok = sum(p.wait() == 0 for p in procs)
        return time.monotonic() - t0, child_cpu() - c0, ok

    def sdk_burst():
        results = []
        c0, t0 = self_cpu(), time.monotonic()
        threads = [threading.Thread(target=lambda: (sdk_cycle(), results.append(1))) for _ in range(k)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.monotonic() - t0, self_cpu() - c0, len(results)

    bursts = [("libsandboxio, %d threads" % k, sbio_burst), ("%d × `docker run --rm` in parallel" % k, cli_burst),
              ("docker-py, %d threads" % k, sdk_burst)]
    runs = [[] for _ in bursts]
    for r in range(args.rounds):
        for i in range(len(bursts)):
            j = (r + i) % len(bursts)
            runs[j].append(bursts[j][1]())
    conc = []
    for (name, _), got in zip(bursts, runs):
        got.sort()
        wall, c, ok = got[len(got) // 2]
        conc.append((name, wall, c, min(g[2] for g in got)))

    # ---- report
    ver = client.version()
    print("Machine: %s, %d CPUs, kernel %s; Docker Engine %s (API %s); date %s; image %s; n=%d per cell."
          % (platform.machine(), os.cpu_count(), platform.release(), ver.get("Version"), ver.get("ApiVersion"),
             time.strftime("%Y-%m-%d"), args.image, n))
    print()
    for title, cells in rows:
        base = cells[0][1]
        print("### %s\n" % title)
        print("| client | median ms | p90 ms | client CPU ms/op | time vs first row | CPU vs first row |")
        print("|---|---|---|---|---|---|")
        for name, m in cells:
            print("| %s | %.1f | %.1f | %.2f | %.2f× | %.1f× |" % (
                name, m["median_ms"], m["p90_ms"], m["cpu_ms_per_op"], m["median_ms"] / base["median_ms"],
                m["cpu_ms_per_op"] / max(base["cpu_ms_per_op"], 1e-6)))
        print()
    # The targets are ratios to `docker run --rm`; the floor's own
    # ratio says how far down any client of this engine could go.
    for name, m in (("`sbio run`", sbio_run), ("The floor (`raw_run.c`)", raw_run)):
        print("%s vs `docker run --rm`: wall %.2f×, client CPU %.2f×." % (
            name, m["median_ms"] / docker_rm["median_ms"], m["cpu_ms_per_op"] / max(docker_rm["cpu_ms_per_op"], 1e-6)))
    print()
    print("### %d MiB of stdout\n" % (args.bytes >> 20))
    print("| client | seconds | MiB/s | client CPU s |")
    print("|---|---|---|---|")
    for name, sec, c in tp:
        print("| %s | %.2f | %.0f | %.2f |" % (name, sec, args.bytes / 1048576 / sec, c))
    print()
    print("### %d sandboxes created and used concurrently (create → exec → destroy each)\n" % k)
    print("Median of %d bursts per client, the order rotating; \"succeeded\" is the worst burst's.\n" % args.rounds)
    print("| client | wall s | client CPU s | succeeded |")
    print("|---|---|---|---|")
    for name, wall, c, ok in conc:
        print("| %s | %.2f | %.2f | %d/%d |" % (name, wall, c, ok, k))


if __name__ == "__main__":
    main()
