#!/usr/bin/env python3
"""Memory and scrape latency while a crowd asks for filtered views.

Filtered views (`/?state=...`, `/api/v1/brains?state=...`) are rendered per request.
For each binary given, in turn (ABAB...), the exporter is started on a fleet of
bench/run.py's shape (4,500 brains by default, the issue's fleet); CLIENTS threads then
ask for filtered views over keep-alive connections for SECONDS, half the landing page
of every healthy brain, half the JSON list of them, each reading its answer slowly
enough to hold it; one scraper fetches /metrics every 100 ms. It prints, per binary,
the process's peak RSS (VmHWM) over that time, the worst and the 99th percentile
scrape, and how the filtered requests were answered (200, 503).

  python3 bench/filtered_views.py --exporter=OLD --exporter=NEW [--brains=4500]

The targets (docs/performance.md): under 128 MiB and every scrape under 0.5 s with
200 clients.
"""

import argparse
import http.client
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: the fleet and the exporter helpers)

PATHS = ["/?state=ok&limit=0", "/api/v1/brains?state=ok"]
READ_CHUNK = 16384
READ_PAUSE = 0.002  # seconds between chunks: a reader that holds its answer a while


def crowd_client(port, index, stop_at, answers, lock):
    path = PATHS[index % len(PATHS)]
    connection = None
    while time.monotonic() < stop_at:
        try:
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", path)
            response = connection.getresponse()
            while response.read(READ_CHUNK):
                time.sleep(READ_PAUSE)
            with lock:
                answers[response.status] = answers.get(response.status, 0) + 1
            if response.status == 503:
                time.sleep(0.05)
        except (OSError, http.client.HTTPException):
            with lock:
                answers["error"] = answers.get("error", 0) + 1
            if connection is not None:
                connection.close()
            connection = None
    if connection is not None:
        connection.close()


def scraper(port, stop_at, seconds):
    while time.monotonic() < stop_at:
        started = time.monotonic()
        try:
            run.get(port, "/metrics", gzip_ok=True, timeout=30)
            seconds.append(time.monotonic() - started)
        except (OSError, http.client.HTTPException, RuntimeError):
            seconds.append(float("inf"))
        time.sleep(0.1)


def measure(binary, fleet, workdir, clients, duration):
    server, port = run.start_exporter(binary, fleet, workdir, interval="1h")
    try:
        run.wait_for_scans(port, server.proc, 1, timeout=300)
        stop_at = time.monotonic() + duration
        answers, lock, scrapes = {}, threading.Lock(), []
        threads = [threading.Thread(target=crowd_client, args=(port, i, stop_at, answers, lock))
                   for i in range(clients)]
        threads.append(threading.Thread(target=scraper, args=(port, stop_at, scrapes)))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        peak_kib = run.proc_status_kib(server.proc.pid, "VmHWM")
    finally:
        server.stop()
    scrapes.sort()
    p99 = scrapes[min(len(scrapes) - 1, int(len(scrapes) * 0.99))]
    return {"peak_mib": peak_kib / 1024.0, "worst": scrapes[-1], "p99": p99,
            "median": statistics.median(scrapes), "answers": answers}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exporter", action="append", required=True,
                        help="a binary to measure; give two to compare them")
    parser.add_argument("--brains", type=int, default=4500)
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="scx-views-bench-")
    try:
        fleet = run.Fleet(os.path.join(workdir, "fleet"), args.brains, args.blocks)
        results = {binary: [] for binary in args.exporter}
        for _ in range(args.rounds):
            for binary in args.exporter:
                results[binary].append(measure(binary, fleet, workdir, args.clients,
                                               args.seconds))
        print("%d brains x %d blocks; %d clients asking %s for %.0f s; /metrics every 100 ms"
              % (args.brains, args.blocks, args.clients, " and ".join(PATHS), args.seconds))
        print("| binary | round | peak RSS | scrape median | p99 | worst | filtered answers |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for binary in args.exporter:
            for number, r in enumerate(results[binary], 1):
                answers = ", ".join("%s: %d" % (k, v) for k, v in sorted(
                    r["answers"].items(), key=lambda item: str(item[0])))
                print("| %s | %d | %.1f MiB | %.3f s | %.3f s | %.3f s | %s |"
                      % (binary, number, r["peak_mib"], r["median"], r["p99"], r["worst"],
                         answers))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
