#!/usr/bin/env python3
"""The exporter's benchmark: one command, every figure as a ratio to a baseline
measured in the same run (docs/performance.md, "Benchmark run").

Builds m1nd-shaped fleets in a temporary folder: N project brains under one runtime
root announced by one registry instance file, B blocks of about 2 KB of JSON each per
store, one brain in 20 serving another brain's skeleton (mismatch), one in 20 without a
store and one in 50 with a store of zero blocks. Then measures, on loopback only:

  floor       a bare open/fstat/read loop over the fleet's store files (this script,
              one thread), and store_reader_bench's C++ floor ratio when it is built;
  cold scan   `skeleton-coherence-exporter --config.file=... --once` wall time for
              1,000 x 50, 10,000 x 10 and 100 x 2,000 blocks: MB/s, ratio to the floor;
              with the stores as just written (synced), then again once they were
              dropped from the page cache and read back from the disk;
  jq          the same verdicts computed by one jq process (bench/verdicts.jq) over the
              same files, as a speed ratio to `--once` (when jq is installed);
  warm scan   skeleton_coherence_exporter_scan_duration_seconds of a running exporter
              (--scan.interval=1s) over 10,000 brains, ratio to `find -printf` (a stat
              walk) over the same tree;
  /metrics    p50/p99 at 1 and 8 concurrent clients, plain and gzip, next to Debian's
              prometheus-node-exporter serving the same text with its textfile
              collector (when installed);
  memory      peak (VmHWM) and steady (VmRSS) RSS and the body sizes at 10,000 brains;
  growth      cold and warm scan time (and the warm scan against a stat walk), RSS,
              body sizes and series per brain at 100 ... 100,000 brains;
  peak RSS    (--peak-rss=N only) VmHWM serving N brains of 1 block (or of each
              --blocks count in turn) through a cold scan, warm scans, 8 clients
              scraping, and a scan under those clients; --runtime-chars=60 pads the
              runtime root to a home folder's path length.

  bench/run.py [--exporter=build/bin/skeleton-coherence-exporter]
               [--store-reader-bench=build/bin/store_reader_bench]
               [--write-doc=docs/performance.md] [--max-brains=100000] [--quick]
               [--growth-only=N,N,...]
               [--peak-rss=N [--blocks=B,B,...] [--runtime-chars=C]]

--peak-rss measures the peak RSS alone, for issue 25's "under 256 MiB serving 100,000
brains with 8 concurrent scrapers" (100,000 brains: about 2 minutes, 1.2 GB).

--growth-only measures the growth rows of the fleet sizes given alone and prints their
table (100,000 brains: about 10 minutes and 2 GB in the temporary folder).

--quick runs every step on a tiny fleet (a few seconds; the test suite runs it once to
prove the command works, and checks the verdict counts, never a time). Every process it
starts is stopped by PID; the temporary folder is removed at the end.
"""

import argparse
import datetime
import gzip
import http.client
import json
import mmap
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

MIB = 1024 * 1024
TARGET_COLD_RATIO = 2.5
TARGET_PEAK_RSS_MIB = 64
TARGET_STEADY_RSS_MIB = 48
DOC_SECTION = "## Benchmark run (bench/run.py)"

WORDS = ["core", "api", "store", "vault", "auth", "index", "cache", "ingest", "sched", "proto"]


# ---------------------------------------------------------------- fleet generation


def block_template():
    """One block as m1nd writes it (2-space indent, nested 4 deep; only fields m1nd's
    types know, or m1nd could not load it), about 2 KB, with
    @ID@, @DIR@ and @SLUG@ placeholders."""
    block = {
        "block_id": "@ID@",
        "name": "@DIR@",
        "purpose": "Owns the @DIR@ layer of @SLUG@: its public surface, its storage "
        "adapters and the tests that pin their behaviour.",
        "kind": "scanned",
        "state": "candidate",
        "boundary_version": 1,
        "contract_version": 1,
        "membership_source": "proposed",
        "membership": [
            {"path": "@DIR@/src/lib.rs", "role": "primary"},
            {"path": "@DIR@/src/model.rs", "role": "primary"},
            {"path": "@DIR@/src/adapter.rs", "role": "shared"},
            {"path": "@DIR@/tests/contract.rs", "role": "test"},
            {"path": "@DIR@/Cargo.toml", "role": "generated", "optional": True},
        ],
        "sockets": {
            "inputs": [{"alias": "@DIR@_requests", "to": "api", "type": "Request"}],
            "outputs": [{"alias": "@DIR@_events", "to": "index", "type": "Event"}],
            "external": [],
        },
        "receipt_contract": {
            "version": 1,
            "required": [{"type": "test", "stales_on": ["@DIR@/src/lib.rs"]}],
            "optional": [{"type": "structural"}],
            "waived": [],
            "declared_by": "cargo test -p @SLUG@-@DIR@",
            "declared_at": None,
        },
        "receipts": [],
        "layout": {"x": 120, "y": 80, "locked": False, "algorithm_seed": {"lane": "@DIR@"},
                   "version": 1},
        "unmapped_residue": [],
        "candidate_meta": {
            "named_by": "heuristic",
            "needs_owner_naming": True,
            "graph_cohesion": 0.82,
            "edge_sample_size": 14,
            "directory_support": 0.9,
            "coverage_ratio": 0.8,
            "shared_member_count": 1,
        },
    }
    text = json.dumps(block, indent=2)
    return "\n".join("    " + line for line in text.split("\n"))


BLOCK = block_template()


def store_text(slug, skeleton_slug, blocks, rng):
    header = (
        '{\n  "schema": "m1nd-system-block-store-v0",\n'
        '  "store_version": %d,\n  "skeleton": {\n'
        '    "skeleton_id": "sk_%s_candidate",\n    "version": 1,\n'
        '    "state": "candidate",\n    "ratification": {\n      "method": "",\n'
        '      "ratifier": "",\n      "ratified_at": "",\n      "commit": "%08x"\n    }\n'
        '  },\n  "blocks": [' % (rng.randrange(1, 500), skeleton_slug, rng.getrandbits(32))
    )
    parts = []
    for b in range(blocks):
        directory = "%s%d" % (WORDS[b % len(WORDS)], b)
        block_id = "sb_%s_%s_%08x" % (skeleton_slug, directory, rng.getrandbits(32))
        parts.append(
            BLOCK.replace("@ID@", block_id).replace("@DIR@", directory).replace("@SLUG@", slug)
        )
    body = ("\n" + ",\n".join(parts) + "\n  ") if parts else ""
    footer = (
        '],\n  "unmapped_policy": {\n    "visible": true,\n'
        '    "default_action": "leave_unmapped_until_ratified"\n  }\n}\n'
    )
    return header + body + footer


def runtime_root_in(root, chars):
    """The runtime root of a fleet in `root`: root/runtime, its name padded with "_" to
    make a path of `chars` characters when that is longer (0: no padding)."""
    runtime = os.path.join(root, "runtime")
    return runtime + "_" * max(0, chars - len(runtime))


class Fleet:
    """N project brains x B blocks under one runtime root, with a registry. With
    `runtime_chars`, the runtime root's path is padded to that many characters (m1nd's
    runtime roots sit in home folders: /home/<user>/.local/share/m1nd/runtime/...)."""

    def __init__(self, root, brains, blocks, runtime_chars=0):
        self.root = root
        self.brains = brains
        self.blocks = blocks
        self.store_paths = []
        self.expected = {"ok": 0, "mismatch": 0, "absent": 0}
        runtime = runtime_root_in(root, runtime_chars)
        registry = os.path.join(root, "registry", "instances")
        os.makedirs(os.path.join(runtime, "project-brains"))
        os.makedirs(registry)
        rng = random.Random(brains * 7919 + blocks)
        for i in range(brains):
            slug = "proj%05d" % i
            folder = os.path.join(runtime, "project-brains", "%016x" % rng.getrandbits(64))
            os.mkdir(folder)
            with open(os.path.join(folder, "project_brain.json"), "w") as f:
                json.dump(
                    {
                        "schema": "m1nd-project-brain-v0",
                        "project_root": "/srv/repos/" + slug,
                        "brain_kind": "project",
                        "created_ms": 1767312000000,
                    },
                    f,
                    indent=2,
                )
            if i % 20 == 7:  # no store yet
                self.expected["absent"] += 1
                continue
            mismatch = i % 20 == 3
            skeleton_slug = "proj%05d" % ((i + 1) % brains) if mismatch else slug
            block_count = 0 if i % 50 == 11 else blocks
            path = os.path.join(folder, "system_blocks.json")
            with open(path, "w") as f:
                f.write(store_text(slug, skeleton_slug, block_count, rng))
            self.store_paths.append(path)
            self.expected["mismatch" if mismatch else "ok"] += 1
        # The owner's own bound brain: no store.
        self.expected["absent"] += 1
        with open(os.path.join(registry, "inst_bench.json"), "w") as f:
            json.dump(
                {
                    "instance_id": "inst_bench",
                    "workspace_root": "/srv/repos/bench-owner",
                    "runtime_root": runtime,
                    "graph_source": os.path.join(runtime, "graph_snapshot.json"),
                    "plasticity_state": os.path.join(runtime, "plasticity_state.json"),
                    "pid": 0,
                    "bind": "127.0.0.1",
                    "port": 1337,
                    "started_at_ms": 0,
                    "last_heartbeat_ms": 0,
                    "mode": "read_write",
                    "status": "running",
                    "owner_live": False,
                    "stale": True,
                    "conflicts": [],
                    "brain_kind": "medulla",
                },
                f,
            )
        self.config = os.path.join(root, "config.yml")
        with open(self.config, "w") as f:
            f.write("m1nd_registries: [registry]\n")
        self.runtime = runtime
        self.store_bytes = sum(os.path.getsize(p) for p in self.store_paths)
        # The kernel writes the new files back now, not on a core during the measurements
        # (the 2-thread exporter felt that more than the 1-thread floor did).
        os.sync()

    def reread_stores_from_disk(self):
        """Drops the stores from the page cache and reads them back from the disk, once:
        the page cache then holds them as after a reboot or an eviction, which copies
        more slowly than pages just written (docs/performance.md)."""
        for path in self.store_paths:
            fd = os.open(path, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        floor_seconds(self.store_paths)

    def remove(self):
        shutil.rmtree(self.root, ignore_errors=True)


# ---------------------------------------------------------------- measurements


def floor_seconds(paths):
    """A bare open/fstat/read-to-EOF/close loop into one reused buffer: the least a
    scan must do. The buffer is made before the clock starts, as large as the largest
    file and already touched, so the loop pays for no page fault; it is an anonymous
    mapping, so it starts on a page (the kernel copies into a buffer that is not
    aligned to a cache line, a bytearray's usually, at about half the speed)."""
    size = max([os.path.getsize(path) for path in paths] + [1]) + 1
    buffer = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    buffer.write(bytes(size))
    view = memoryview(buffer)
    start = time.perf_counter()
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        os.fstat(fd)
        while os.readv(fd, [view]) > 0:
            pass
        os.close(fd)
    elapsed = time.perf_counter() - start
    view.release()
    buffer.close()
    return elapsed


def once_seconds(exporter, fleet, check):
    start = time.perf_counter()
    result = subprocess.run(
        [exporter, "--config.file=" + fleet.config, "--once", "--log.level=error"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=300,
    )
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1):
        raise RuntimeError("--once exited %d: %s" % (result.returncode, result.stderr[-500:]))
    if check:
        counts = {"ok": 0, "mismatch": 0, "absent": 0}
        for brain in json.loads(result.stdout)["brains"]:
            if brain["store"] == "absent":
                counts["absent"] += 1
            else:
                counts[brain["skeleton_coherence"]["status"]] += 1
        if counts != fleet.expected:
            raise RuntimeError("verdicts %s, expected %s" % (counts, fleet.expected))
    return elapsed


JQ_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verdicts.jq")


def jq_seconds(fleet, check):
    """bench/verdicts.jq over every manifest and store, in one jq process; each brain's
    manifest comes right before its store. Paths are relative to project-brains/ so
    that 30,000 brains fit on one command line."""
    brains_dir = os.path.join(fleet.runtime, "project-brains")
    files = []
    for folder in sorted(os.listdir(brains_dir)):
        files.append(folder + "/project_brain.json")
        if os.path.exists(os.path.join(brains_dir, folder, "system_blocks.json")):
            files.append(folder + "/system_blocks.json")
    start = time.perf_counter()
    result = subprocess.run(["jq", "-n", "-c", "-f", JQ_PROGRAM] + files, cwd=brains_dir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600,
                            check=True)
    elapsed = time.perf_counter() - start
    if check:
        counts = json.loads(result.stdout)
        wanted = {k: fleet.expected[k] for k in ("ok", "mismatch")}
        if counts != wanted:
            raise RuntimeError("jq verdicts %s, expected %s" % (counts, wanted))
    return elapsed


def stat_walk_seconds(fleet):
    start = time.perf_counter()
    subprocess.run(
        ["find", fleet.runtime, "-printf", "%i %s %T@\n"],
        stdout=subprocess.DEVNULL,
        check=True,
        timeout=120,
    )
    return time.perf_counter() - start


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path, gzip_ok=False, timeout=120, accept=None):
    """One GET on a connection of its own; the body, or RuntimeError unless 200."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Accept-Encoding": "gzip"} if gzip_ok else {}
    if accept:
        headers["Accept"] = accept
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        raise RuntimeError("GET %s: %d" % (path, response.status))
    return body


def metric_value(text, name):
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def steady_rss_kib(pid, samples=20, every=0.25):
    """The median of VmRSS sampled over a few seconds: one sample may land inside a
    scan and its render (with --scan.interval=1s, a quarter of the time at 10,000
    brains), the median is what the process holds between them."""
    values = []
    for _ in range(samples):
        values.append(proc_status_kib(pid, "VmRSS"))
        time.sleep(every)
    return statistics.median(values)


def proc_status_kib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


class Process:
    """A server started by this script, stopped by its PID."""

    def __init__(self, argv, log_path):
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def start_exporter(exporter, fleet, workdir, interval="1s"):
    port = free_port()
    server = Process(
        [
            exporter,
            "--config.file=" + fleet.config,
            "--web.listen-address=127.0.0.1:%d" % port,
            "--scan.interval=" + interval,
            "--scan.watch=false",
            "--log.level=error",
        ],
        os.path.join(workdir, "exporter-%d.log" % port),
    )
    return server, port


def wait_for_scans(port, proc, scans, timeout):
    """Waits until the exporter has completed `scans` scans; returns /metrics text."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("exporter exited with %d" % proc.returncode)
        try:
            # gzip: the exporter keeps the compressed body, so polling costs it little.
            text = gzip.decompress(get(port, "/metrics", gzip_ok=True)).decode()
            done = metric_value(text, "skeleton_coherence_exporter_scans_total")
            if done is not None and done >= scans:
                return text
        except (OSError, http.client.HTTPException, RuntimeError):
            pass  # not listening yet, or 503 until the first scan completes
        time.sleep(0.5)
    raise RuntimeError("no %d scans within %d s" % (scans, timeout))


def warm_scan_seconds(port, proc, samples):
    """Median of `samples` scan durations of a running exporter (store verdicts cached)."""
    values = []
    text = wait_for_scans(port, proc, 2, 300)
    seen = metric_value(text, "skeleton_coherence_exporter_scans_total")
    while len(values) < samples:
        text = wait_for_scans(port, proc, seen + 1, 120)
        seen = metric_value(text, "skeleton_coherence_exporter_scans_total")
        values.append(metric_value(text, "skeleton_coherence_exporter_scan_duration_seconds"))
    return statistics.median(values)


def latencies(port, clients, per_client, gzip_ok, budget, accept=None):
    """Each client fetches /metrics in turn, each time on a new connection; stops after
    per_client or the budget. Returns the median, p99 and count of their seconds."""
    results = []
    errors = []
    lock = threading.Lock()
    deadline = time.monotonic() + budget

    def client():
        for n in range(per_client):
            if n > 0 and time.monotonic() > deadline:
                return
            start = time.perf_counter()
            try:
                get(port, "/metrics", gzip_ok, accept=accept)
            except (OSError, http.client.HTTPException, RuntimeError) as error:
                with lock:
                    errors.append(str(error))
                return
            with lock:
                results.append(time.perf_counter() - start)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError("scrape failed: %s" % errors[0])
    results.sort()
    p99 = results[min(len(results) - 1, int(round(0.99 * (len(results) - 1))))]
    return statistics.median(results), p99, len(results)


# ---------------------------------------------------------------- the run


def median_of(fn, reps):
    return statistics.median(fn() for _ in range(reps))


def compare_on_fleet(args, prefix, heading, measure):
    """Writes a fleet of args.brains x args.blocks into a temporary folder (in /dev/shm
    when it can), then runs measure(exporter, fleet, workdir) for each of args.exporter
    in turn, args.rounds times (ABAB..., so that load on the machine hits them alike),
    printing each result (a dict of figures) as it comes; then `heading` and each
    binary's median of each figure. The folder is removed at the end."""
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    workdir = tempfile.mkdtemp(prefix=prefix, dir=base)
    try:
        fleet = Fleet(os.path.join(workdir, "fleet"), args.brains, args.blocks)
        results = {exporter: [] for exporter in args.exporter}
        for number in range(1, args.rounds + 1):
            for exporter in args.exporter:
                result = measure(exporter, fleet, workdir)
                results[exporter].append(result)
                print("round %d %s: %s" % (number, exporter, ", ".join(
                    "%s %.4g" % item for item in result.items())), flush=True)
        print("\n" + heading)
        for exporter, rows in results.items():
            print("  %s: %s" % (exporter, ", ".join(
                "%s %.4g" % (key, statistics.median(row[key] for row in rows))
                for key in rows[0])))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def floor_and_once(args, fleet, reps):
    """Medians of `reps` floor loops and `--once` runs, interleaved so that load on the
    machine hits both alike, after one untimed floor loop."""
    floor_seconds(fleet.store_paths)
    floors, onces = [], []
    for _ in range(reps):
        floors.append(floor_seconds(fleet.store_paths))
        onces.append(once_seconds(args.exporter, fleet, check=False))
    return statistics.median(floors), statistics.median(onces)


def cold_scans(args, workdir, shapes, reps, out):
    rows = []
    for brains, blocks in shapes:
        fleet = Fleet(os.path.join(workdir, "cold-%dx%d" % (brains, blocks)), brains, blocks)
        once_seconds(args.exporter, fleet, check=True)  # checks the verdicts
        floor, once = floor_and_once(args, fleet, reps)
        fleet.reread_stores_from_disk()
        reread_floor, reread_once = floor_and_once(args, fleet, reps)
        jq = None
        if shutil.which("jq"):
            jq_seconds(fleet, check=True)
            jq = median_of(lambda: jq_seconds(fleet, check=False), reps)
        mb = fleet.store_bytes / 1e6
        row = {
            "fleet": "%s x %s" % (f"{brains:,}", f"{blocks:,}"),
            "mb": mb,
            "floor_s": floor,
            "once_s": once,
            "floor_mbps": mb / floor,
            "once_mbps": mb / once,
            "ratio": once / floor,
            "reread_floor_s": reread_floor,
            "reread_once_s": reread_once,
            "jq_s": jq,
        }
        rows.append(row)
        out(
            "cold %-14s %7.1f MB  floor %.3f s (%.0f MB/s)  --once %.3f s (%.0f MB/s)  "
            "ratio %.2fx  jq %s" % (row["fleet"], mb, floor, row["floor_mbps"], once,
                                    row["once_mbps"], row["ratio"],
                                    "%.3f s (%.1fx --once)" % (jq, jq / once) if jq else "not run")
        )
        out("     %-14s read back from disk: floor %.3f s (%.0f MB/s)  --once %.3f s  ratio %.2fx"
            % (row["fleet"], reread_floor, mb / reread_floor, reread_once,
               reread_once / reread_floor))
        fleet.remove()
    return rows


def store_reader_bench(args, quick, out):
    if not args.store_reader_bench or not os.access(args.store_reader_bench, os.X_OK):
        out("store_reader_bench: not built, skipped")
        return None
    argv = [args.store_reader_bench, "--no-dom", "--reps=%d" % (1 if quick else 5)]
    if quick:
        argv += ["--files=20", "--blocks=3"]
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            timeout=300, text=True)
    lines = [line.strip() for line in result.stdout.splitlines() if line.startswith("ratio")]
    summary = " | ".join(lines) or "no ratio printed"
    out("store_reader_bench (C++ floor, ReadStore vs open/read/close): " + summary)
    return summary


def node_exporter_binary():
    for name in ("prometheus-node-exporter", "node_exporter"):
        path = shutil.which(name)
        if path:
            return path
    return None


def start_node_exporter(binary, text, workdir):
    """Serves `text` (without process_* families, which node_exporter has itself) with
    the textfile collector alone."""
    folder = os.path.join(workdir, "textfile")
    os.makedirs(folder, exist_ok=True)
    kept = []
    for line in text.splitlines():
        name = line.split()[2] if line.startswith("# ") and len(line.split()) > 2 else line
        if not name.startswith("process_"):
            kept.append(line)
    with open(os.path.join(folder, "scx.prom"), "w") as f:
        f.write("\n".join(kept) + "\n")
    port = free_port()
    server = Process(
        [
            binary,
            "--web.listen-address=127.0.0.1:%d" % port,
            "--collector.disable-defaults",
            "--collector.textfile",
            "--collector.textfile.directory=" + folder,
        ],
        os.path.join(workdir, "node-exporter.log"),
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            get(port, "/metrics")
            return server, port
        except (OSError, http.client.HTTPException, RuntimeError):
            if time.monotonic() > deadline or server.proc.poll() is not None:
                server.stop()
                raise RuntimeError("node exporter did not start")
            time.sleep(0.2)


def peak_rss(args, fleet, workdir, out):
    """VmHWM of the exporter serving `fleet` through what holds the most memory: the cold
    scan, two warm scans (each holds the served scan beside the one it builds), 8 clients
    x 6 scrapes plain then gzip, two warm scans after them, and one under 8 clients.
    Scans are asked for with SIGHUP (the interval is an hour). Returns the phases."""
    server, port = start_exporter(args.exporter, fleet, workdir, interval="1h")
    phases = []
    scans = 0

    def note(phase):
        hwm = proc_status_kib(server.proc.pid, "VmHWM")
        rss = proc_status_kib(server.proc.pid, "VmRSS")
        phases.append((phase, hwm, rss))
        out("peak RSS %-34s VmHWM %6.1f MiB, VmRSS %6.1f MiB" % (phase, mib(hwm), mib(rss)))

    def scan(phase, scrapes_per_client=0):
        """The next scan (the first is the cold one), with 8 clients scraping meanwhile."""
        nonlocal scans
        scans += 1
        if scans > 1:
            server.proc.send_signal(signal.SIGHUP)
        if scrapes_per_client:
            latencies(port, 8, scrapes_per_client, False, 600)
        wait_for_scans(port, server.proc, scans, 1800)
        note(phase)

    try:
        scan("after the cold scan")
        scan("after warm scan 1")
        scan("after warm scan 2")
        for gzip_ok in (False, True):
            latencies(port, 8, 6, gzip_ok, 600)
            note("after 8 clients x 6 %s" % ("gzip" if gzip_ok else "plain"))
        scan("after warm scan 3")
        scan("after warm scan 4")
        scan("after warm scan 5, under 8 clients", scrapes_per_client=3)
    finally:
        server.stop()
    return phases


def serve_and_measure(args, fleet, workdir, latency_plan, scans, out):
    """Runs the exporter over `fleet`: warm scan, body sizes, optional latencies, RSS."""
    result = {}
    server, port = start_exporter(args.exporter, fleet, workdir)
    node = None
    try:
        pid = server.proc.pid
        result["warm_s"] = warm_scan_seconds(port, server.proc, scans)
        plain = get(port, "/metrics")
        result["body_text"] = len(plain)
        result["body_gzip"] = len(get(port, "/metrics", gzip_ok=True))
        result["samples"] = sum(
            1 for line in plain.decode().splitlines() if line and not line.startswith("#")
        )
        result["rss_idle_kib"] = steady_rss_kib(pid, samples=12)
        if latency_plan:
            binary = node_exporter_binary() if not args.quick else None
            if binary:
                node, node_port = start_node_exporter(binary, plain.decode(), workdir)
            rows = []
            for clients, per_client, budget in latency_plan:
                for gzip_ok in (False, True):
                    p50, p99, n = latencies(port, clients, per_client, gzip_ok, budget)
                    row = {"clients": clients, "gzip": gzip_ok, "p50": p50, "p99": p99, "n": n}
                    if node:
                        np50, np99, nn = latencies(node_port, clients, per_client, gzip_ok, budget)
                        row.update({"node_p50": np50, "node_p99": np99, "node_n": nn})
                    rows.append(row)
                    out(
                        "/metrics %d client(s) %-5s p50 %.4f s p99 %.4f s (n=%d)%s"
                        % (clients, "gzip" if gzip_ok else "plain", p50, p99, n,
                           "  node_exporter p50 %.4f s p99 %.4f s (n=%d), p99 ratio %.1f%%"
                           % (row["node_p50"], row["node_p99"], row["node_n"],
                              100 * p99 / row["node_p99"]) if node else "")
                    )
            result["latency"] = rows
            if node:
                result["node_hwm_kib"] = proc_status_kib(node.proc.pid, "VmHWM")
                result["node_rss_kib"] = proc_status_kib(node.proc.pid, "VmRSS")
                node.stop()
                node = None
            result["rss_peak_kib"] = proc_status_kib(pid, "VmHWM")
            # Steady: after the scrapers stop, a few scans later.
            text = get(port, "/metrics").decode()
            seen = metric_value(text, "skeleton_coherence_exporter_scans_total")
            wait_for_scans(port, server.proc, seen + scans, 120)
            result["rss_steady_kib"] = steady_rss_kib(pid)
        result["rss_peak_kib"] = proc_status_kib(pid, "VmHWM")
        if "rss_steady_kib" not in result:
            result["rss_steady_kib"] = proc_status_kib(pid, "VmRSS")
        # The JSON view and the landing page are rendered at their first request and
        # kept until the next scan: asked for last, their cost is a figure of its own.
        result["body_json"] = len(get(port, "/api/v1/brains"))
        result["body_html"] = len(get(port, "/"))
        result["rss_views_peak_kib"] = proc_status_kib(pid, "VmHWM")
    finally:
        if node:
            node.stop()
        server.stop()
    return result


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = proc_meminfo_gib()
    return "%s, %d cores, %.1f GiB RAM, Linux %s, load average %.1f at start" % (
        model, os.cpu_count(), mem, platform.release(), os.getloadavg()[0])


def proc_meminfo_gib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / MIB
    return 0.0


def mib(kib):
    return kib / 1024.0


def verdict(ok):
    return "**met**" if ok else "**missed**"


def render_doc(report):
    lines = [DOC_SECTION, ""]
    lines += [
        "Measured %s on %s, exporter `%s`. Command: `%s`. Fleets: project brains under one "
        "runtime root with one registry instance, about 2 KB of JSON a block, 1 brain in 20 a "
        "mismatch, 1 in 20 without a store, 1 in 50 with zero blocks. Ratios are against a "
        "baseline measured in the same run; one run, not a guarantee."
        % (report["date"], report["machine"], report["version"], report["command"]),
        "",
        "### Cold scan (`--once`, wall time) against the floor",
        "",
        "The floor is a bare open/fstat/read loop over the same store files, on one thread, "
        "into one page-aligned buffer made and touched before the clock starts (Python: its "
        "per-call overhead makes it somewhat slower than the same loop in C on many small "
        "files; see store_reader_bench below). The fleets are written just before, each "
        "store in one write as m1nd writes it, then synced, so the page cache holds them as "
        "it holds a store m1nd has just written: the fastest state to copy from, and the "
        "one the target is judged in. The last column is the same measurement after the "
        "stores were dropped from the page cache and read back from the disk, as after a "
        "reboot or an eviction: the floor then copies more slowly (at half the speed on "
        "the largest stores of this machine). Median "
        "of %d interleaved runs each." % report["cold_reps"],
        "",
        "The jq column computes the same verdicts (ok and mismatch counts, checked) with "
        "one jq process running bench/verdicts.jq over every manifest and store: a "
        "competent script, as a speed ratio to `--once`.",
        "",
        "| fleet (brains x blocks) | stores | floor | `--once` | ratio (target <= %.1f) | jq "
        "| jq / `--once` | read back from disk: floor, `--once`, ratio |"
        % TARGET_COLD_RATIO,
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in report["cold"]:
        jq = ("%.3f s | %.1fx" % (r["jq_s"], r["jq_s"] / r["once_s"]) if r.get("jq_s")
              else "not run | ")
        lines.append(
            "| %s | %.0f MB | %.3f s, %.0f MB/s | %.3f s, %.0f MB/s | %.2fx %s | %s "
            "| %.3f s, %.3f s, %.2fx |"
            % (r["fleet"], r["mb"], r["floor_s"], r["floor_mbps"], r["once_s"], r["once_mbps"],
               r["ratio"], verdict(r["ratio"] <= TARGET_COLD_RATIO), jq, r["reread_floor_s"],
               r["reread_once_s"], r["reread_once_s"] / r["reread_floor_s"])
        )
    if report.get("store_reader_bench"):
        lines += ["", "`store_reader_bench --no-dom --reps=5` (C++ floor, 1,000 x 50): %s"
                  % report["store_reader_bench"]]
    main = report["main"]
    lines += [
        "",
        "### %s brains x 10 blocks, served" % f"{report['main_brains']:,}",
        "",
        "| figure | value |",
        "| --- | --- |",
        "| warm scan (`scan_duration_seconds`, median of 3, `--scan.interval=1s`) | %.3f s |"
        % main["warm_s"],
        "| stat walk of the same tree (`find -printf '%%i %%s %%T@'`) | %.3f s |"
        % report["stat_walk_s"],
        "| warm scan / stat walk | %.2fx |" % (main["warm_s"] / report["stat_walk_s"]),
        "| `/metrics` body | %.1f MB text, %.2f MB gzip, %s samples |"
        % (main["body_text"] / 1e6, main["body_gzip"] / 1e6, f"{main['samples']:,}"),
        "| `/api/v1/brains` JSON, `/` HTML | %.1f MB, %.1f MB |"
        % (main["body_json"] / 1e6, main["body_html"] / 1e6),
        "| peak RSS (VmHWM) after 1 and 8 concurrent scrapers (target < %d MiB) | %.1f MiB %s |"
        % (TARGET_PEAK_RSS_MIB, mib(main["rss_peak_kib"]),
           verdict(mib(main["rss_peak_kib"]) < TARGET_PEAK_RSS_MIB)),
        "| steady RSS (median of VmRSS sampled 20 times over 5 s, three scans after the "
        "scrapers stop; target < %d MiB) | %.1f MiB %s |"
        % (TARGET_STEADY_RSS_MIB, mib(main["rss_steady_kib"]),
           verdict(mib(main["rss_steady_kib"]) < TARGET_STEADY_RSS_MIB)),
        "| peak RSS once `/api/v1/brains` and `/` are requested too (rendered at first "
        "request) | %.1f MiB |"
        % mib(main["rss_views_peak_kib"]),
    ]
    if "node_hwm_kib" in main:
        lines.append(
            "| prometheus-node-exporter serving the same text: peak / last RSS "
            "| %.0f MiB / %.0f MiB |"
            % (mib(main["node_hwm_kib"]), mib(main["node_rss_kib"])))
    lines += [
        "",
        "`/metrics` latency (each request on a new connection, whole body read):",
        "",
        "| clients | encoding | p50 | p99 | requests | node_exporter textfile p50 | p99 "
        "| exporter p99 / node_exporter p99 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in main["latency"]:
        node = ("%.3f s | %.3f s | %.1f%%" % (r["node_p50"], r["node_p99"],
                                              100 * r["p99"] / r["node_p99"])
                if "node_p99" in r else "not run | | ")
        lines.append("| %d | %s | %.4f s | %.4f s | %d | %s |" % (
            r["clients"], "gzip" if r["gzip"] else "plain", r["p50"], r["p99"], r["n"], node))
    lines += [""] + render_growth(report["growth"])
    lines.append("")
    return "\n".join(lines) + "\n"


def render_growth(growth):
    """The growth table's lines: one row per fleet size, with what each adds per brain."""
    lines = [
        "### Growth (10 blocks a brain)",
        "",
        "| brains | stores | cold `--once` | warm scan | stat walk (`find -printf`) | warm / walk "
        "| RSS after one scrape (median of 12 samples over 3 s; peak so far) "
        "| `/metrics` text, gzip | series per brain "
        "| added per brain since the row above: cold, warm scan, RSS, text |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    previous = None
    for g in growth:
        if previous:
            added = g["brains"] - previous["brains"]
            slope = "%.0f us, %.0f us, %.2f KiB, %.0f B" % (
                1e6 * (g["once_s"] - previous["once_s"]) / added,
                1e6 * (g["warm_s"] - previous["warm_s"]) / added,
                (g["rss_idle_kib"] - previous["rss_idle_kib"]) / added,
                (g["body_text"] - previous["body_text"]) / added)
        else:
            slope = "(first row)"
        lines.append(
            "| %s | %.0f MB | %.3f s | %.3f s | %.3f s | %.2fx | %.0f MiB (%.0f MiB) "
            "| %.1f MB, %.2f MB | %.1f | %s |" % (
                f"{g['brains']:,}", g["mb"], g["once_s"], g["warm_s"], g["stat_walk_s"],
                g["warm_s"] / g["stat_walk_s"], mib(g["rss_idle_kib"]), mib(g["rss_peak_kib"]),
                g["body_text"] / 1e6, g["body_gzip"] / 1e6, g["samples"] / g["brains"], slope))
        previous = g
    return lines


def measure_growth_row(args, fleet, brains, once, served, out):
    """A growth row from a served fleet: adds the stat walk (median of 3) of its tree."""
    stat_walk = median_of(lambda: stat_walk_seconds(fleet), 3)
    row = dict(served, brains=brains, mb=fleet.store_bytes / 1e6, once_s=once,
               stat_walk_s=stat_walk)
    out("growth %6d brains: cold %.3f s, warm %.3f s, stat walk %.3f s (%.2fx), RSS %.0f MiB "
        "(peak %.0f), text %d bytes, gzip %d bytes, %.1f series per brain"
        % (brains, once, served["warm_s"], stat_walk, served["warm_s"] / stat_walk,
           mib(served["rss_idle_kib"]), mib(served["rss_peak_kib"]), served["body_text"],
           served["body_gzip"], served["samples"] / brains))
    return row


def write_doc(path, section):
    with open(path) as f:
        text = f.read()
    start = text.find(DOC_SECTION)
    if start >= 0:
        end = text.find("\n## ", start + len(DOC_SECTION))
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    with open(path, "w") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.path.join(os.path.dirname(here), "build", "bin")
    parser.add_argument("--exporter", default=os.path.join(build, "skeleton-coherence-exporter"))
    parser.add_argument("--store-reader-bench", default=os.path.join(build, "store_reader_bench"))
    parser.add_argument("--write-doc", default=None, help="update this docs/performance.md")
    parser.add_argument("--max-brains", type=int, default=100000, help="largest growth fleet")
    parser.add_argument("--quick", action="store_true", help="tiny fleets: proves it works")
    parser.add_argument("--served-only", action="store_true",
                        help="only the served fleet (10,000 brains): warm scan, bodies, RSS and "
                        "/metrics latency, printed; no cold scans, no growth, no doc")
    parser.add_argument("--growth-only", metavar="N,N,...", default=None,
                        help="only the growth rows of these fleet sizes (10 blocks a brain), "
                        "printed as a table; no cold scans, no latency, no doc")
    parser.add_argument("--peak-rss", metavar="N", type=int, default=None,
                        help="only the peak RSS serving N brains through cold and warm scans "
                        "and 8 concurrent scrapers, printed; nothing else")
    parser.add_argument("--blocks", metavar="B,B,...", default="1",
                        help="with --peak-rss: blocks a store, one fleet for each (default 1)")
    parser.add_argument("--runtime-chars", metavar="C", type=int, default=0,
                        help="with --peak-rss: pad the fleet's runtime root to a path of C "
                        "characters (60: a home folder's; default: the temporary folder's)")
    args = parser.parse_args()
    try:
        peak_blocks = [int(b) for b in args.blocks.split(",")]
    except ValueError:
        sys.exit("--blocks wants block counts: --blocks=1,10")
    if (args.served_only or args.growth_only or args.peak_rss) and args.write_doc:
        sys.exit("--served-only, --growth-only and --peak-rss measure too little for "
                 "--write-doc")
    if not os.access(args.exporter, os.X_OK):
        sys.exit("no exporter at %s (build it first: scripts/build.sh)" % args.exporter)

    def out(line):
        print(line, flush=True)

    if args.quick:
        cold_shapes = [(10, 5), (20, 2), (2, 40)]
        main_brains, growth_sizes, reps = 20, [5, 20], 1
        latency_plan = [(1, 2, 5), (8, 1, 5)]
    else:
        cold_shapes = [(1000, 50), (10000, 10), (100, 2000)]
        main_brains, reps = 10000, 3
        growth_sizes = [n for n in (100, 1000, 10000, 30000, 100000) if n <= args.max_brains]
        latency_plan = [(1, 20, 30), (8, 10, 40)]
    if args.served_only:
        growth_sizes = []
    if args.growth_only:
        try:
            growth_sizes = sorted(set(int(n) for n in args.growth_only.split(",")))
        except ValueError:
            sys.exit("--growth-only wants fleet sizes: --growth-only=10000,100000")

    report = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "command": "python3 bench/run.py --write-doc=docs/performance.md"
        + ("" if args.max_brains == 100000 else " --max-brains=%d" % args.max_brains),
        "reps": reps,
        "cold_reps": 1 if args.quick else 9,
        "main_brains": main_brains,
    }
    version = subprocess.run([args.exporter, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=30).stdout
    report["version"] = (version.splitlines() or ["unknown"])[0].strip()
    out("machine: " + report["machine"])
    out("exporter: " + report["version"])
    workdir = tempfile.mkdtemp(prefix="scx-bench-")
    try:
        if args.peak_rss or args.quick:
            brains = args.peak_rss or main_brains
            worst_lines = []
            for blocks in peak_blocks:
                fleet = Fleet(os.path.join(workdir, "peak-%dx%d" % (brains, blocks)), brains,
                              blocks, args.runtime_chars)
                out("peak RSS fleet %d brains x %d blocks, runtime root %d characters" % (
                    brains, blocks, len(fleet.runtime)))
                phases = peak_rss(args, fleet, workdir, out)
                fleet.remove()
                worst = max(hwm for _, hwm, _ in phases)
                worst_lines.append("peak RSS serving %d brains x %d blocks (runtime root %d "
                                   "characters): %.1f MiB (VmHWM)" % (
                                       brains, blocks, len(fleet.runtime), mib(worst)))
            for line in worst_lines:
                out(line)
            if args.peak_rss:
                return
        if args.growth_only:
            report["growth"] = []
            for brains in growth_sizes:
                fleet = Fleet(os.path.join(workdir, "growth-%d" % brains), brains, 10)
                once = median_of(lambda: once_seconds(args.exporter, fleet, check=False), reps)
                served = serve_and_measure(args, fleet, workdir, None, 1 if args.quick else 3,
                                           out)
                report["growth"].append(measure_growth_row(args, fleet, brains, once, served,
                                                           out))
                fleet.remove()
            out("")
            out("\n".join(render_growth(report["growth"])))
            return
        if not args.served_only:
            report["store_reader_bench"] = store_reader_bench(args, args.quick, out)
            report["cold"] = cold_scans(args, workdir, cold_shapes, report["cold_reps"], out)
        report["growth"] = []
        for brains in sorted(set(growth_sizes + [main_brains])):
            fleet = Fleet(os.path.join(workdir, "served-%d" % brains), brains, 10)
            once = 0 if args.served_only else median_of(
                lambda: once_seconds(args.exporter, fleet, check=False), reps)
            plan = latency_plan if brains == main_brains else None
            served = serve_and_measure(args, fleet, workdir, plan, 1 if args.quick else 3, out)
            if brains == main_brains:
                report["main"] = served
                report["stat_walk_s"] = median_of(lambda: stat_walk_seconds(fleet), 3)
                out("warm scan %d brains %.3f s, stat walk (find) %.3f s, ratio %.2fx" % (
                    brains, served["warm_s"], report["stat_walk_s"],
                    served["warm_s"] / report["stat_walk_s"]))
                out("RSS %d brains: peak %.0f MiB, steady %.0f MiB; bodies text %d gzip %d "
                    "json %d html %d bytes" % (brains, mib(served["rss_peak_kib"]),
                                               mib(served["rss_steady_kib"]), served["body_text"],
                                               served["body_gzip"], served["body_json"],
                                               served["body_html"]))
            if brains in growth_sizes:
                report["growth"].append(measure_growth_row(args, fleet, brains, once, served,
                                                           out))
            fleet.remove()
        if args.served_only:
            return
        section = render_doc(report)
        if args.write_doc:
            write_doc(args.write_doc, section)
            out("wrote " + args.write_doc)
        else:
            out("")
            out(section)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
