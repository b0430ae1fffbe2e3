#!/usr/bin/env python3
"""Memory and scrape latency while a crowd asks for filtered views.

Filtered views (`/?state=...`, `/api/v1/brains?state=...`) are rendered per request.
For each binary given, in turn (ABAB...), the exporter is started on a fleet of
bench/run.py's shape (4,500 brains by default, the issue's fleet); CLIENTS threads then
ask for filtered views over keep-alive connections for SECONDS, half the landing page
of every healthy brain, half the JSON list of them, each reading its answer slowly
enough to hold it, from four loopback addresses (127.0.0.2 to .5: the exporter caps
connections per address at 64), one process each; a 503 is retried after a second
(Retry-After). One scraper, a process of its own on 127.0.0.1, fetches /metrics every
100 ms. It prints, per binary,
the process's peak RSS (VmHWM) over that time, the worst and the 99th percentile
scrape, and how the filtered requests were answered (200, 503).

  python3 bench/filtered_views.py --exporter=OLD --exporter=NEW [--brains=4500]

The targets (docs/performance.md): under 128 MiB and every scrape under 0.5 s with
200 clients.
"""

import argparse
import http.client
import multiprocessing
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
CROWD_ADDRESSES = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]
CLIENTS_PER_ADDRESS = 50


def crowd_client(port, index, stop_at, answers, lock):
    path = PATHS[index % len(PATHS)]
    source = (CROWD_ADDRESSES[index // CLIENTS_PER_ADDRESS % len(CROWD_ADDRESSES)], 0)
    connection = None
    while time.monotonic() < stop_at:
        try:
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                                        source_address=source)
            connection.request("GET", path)
            response = connection.getresponse()
            while response.read(READ_CHUNK):
                time.sleep(READ_PAUSE)
            with lock:
                answers[response.status] = answers.get(response.status, 0) + 1
            if response.status == 503:
                time.sleep(1.0)  # Retry-After
        except (OSError, http.client.HTTPException):
            with lock:
                answers["error"] = answers.get("error", 0) + 1
            if connection is not None:
                connection.close()
            connection = None
            time.sleep(0.05)
    if connection is not None:
        connection.close()


def crowd_process(port, first, count, duration, results):
    """`count` crowd clients on threads; puts their answers on `results`."""
    stop_at = time.monotonic() + duration
    answers, lock = {}, threading.Lock()
    threads = [threading.Thread(target=crowd_client, args=(port, i, stop_at, answers, lock))
               for i in range(first, first + count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put(("answers", answers))


def scraper(port, duration, results):
    stop_at = time.monotonic() + duration
    seconds = []
    while time.monotonic() < stop_at:
        started = time.monotonic()
        try:
            run.get(port, "/metrics", gzip_ok=True, timeout=30)
            seconds.append(time.monotonic() - started)
        except (OSError, http.client.HTTPException, RuntimeError):
            seconds.append(float("inf"))
        time.sleep(0.1)
    results.put(("scrapes", seconds))


def measure(binary, fleet, workdir, clients, duration):
    server, port = run.start_exporter(binary, fleet, workdir, interval="1h")
    try:
        run.wait_for_scans(port, server.proc, 1, timeout=300)
        results = multiprocessing.Queue()
        share = clients // len(CROWD_ADDRESSES)
        # Process p runs clients p * share ... p * share + share - 1: one address each.
        workers = [multiprocessing.Process(target=crowd_process,
                                           args=(port, p * share, share, duration, results))
                   for p in range(len(CROWD_ADDRESSES))]
        workers.append(multiprocessing.Process(target=scraper, args=(port, duration, results)))
        for worker in workers:
            worker.start()
        answers, scrapes = {}, []
        for _ in workers:
            kind, value = results.get(timeout=duration + 120)
            if kind == "scrapes":
                scrapes = value
            else:
                for status, count in value.items():
                    answers[status] = answers.get(status, 0) + count
        for worker in workers:
            worker.join()
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
    parser.add_argument("--clients", type=int, default=200,
                        help="a multiple of 4, at most %d" % (4 * CLIENTS_PER_ADDRESS))
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
