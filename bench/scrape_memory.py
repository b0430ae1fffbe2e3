#!/usr/bin/env python3
"""What scrapes leave behind in the exporter's memory when each comes on a new
connection, so that they go round the HTTP server's worker threads (as scrapes by
several Prometheus servers, or through a proxy that does not keep connections, do).

For each binary given, in turn (ABAB...), the exporter is started on a fleet of
bench/run.py's shape (10,000 brains x 10 blocks by default) at --scan.interval=1h, so
that only its first scan runs. Once that scan is served:

  idle        VmRSS, the median of 20 samples over 5 s, before any scrape
  after N     the same after --scrapes scrapes of /metrics by --clients clients at
              once, each scrape on a connection of its own, in turn plain text,
              gzip and OpenMetrics; measured after each of --batches batches, so
              that a growth that goes on shows as one
  peak        VmHWM at the end
  p50         the median time of a scrape over the last batch

It prints each binary's medians over the rounds.

  python3 bench/scrape_memory.py --exporter=OLD --exporter=NEW [--brains=10000]
      [--blocks=10] [--scrapes=600] [--batches=2] [--clients=4] [--rounds=2]

The fleet is written once into a temporary folder.
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

OPENMETRICS = "application/openmetrics-text; version=1.0.0"


def scrape(port, kind):
    """One /metrics on a connection of its own; returns its seconds."""
    headers = {}
    if kind == 1:
        headers["Accept-Encoding"] = "gzip"
    elif kind == 2:
        headers["Accept"] = OPENMETRICS
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", "/metrics", headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    if response.status != 200:
        raise RuntimeError("GET /metrics: %d" % response.status)
    return time.monotonic() - started


def batch(port, scrapes, clients):
    """`scrapes` scrapes by `clients` threads at once; returns their seconds."""
    times = []
    lock = threading.Lock()
    errors = []

    def client(index):
        try:
            for n in range(index, scrapes, clients):
                took = scrape(port, n % 3)
                with lock:
                    times.append(took)
        except (OSError, http.client.HTTPException, RuntimeError) as error:
            errors.append(error)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError("a scrape failed: %s" % errors[0])
    return times


def measure(exporter, fleet, workdir, args):
    server, port = run.start_exporter(exporter, fleet, workdir, interval="1h")
    try:
        run.wait_for_scans(port, server.proc, 1, 600)
        pid = server.proc.pid
        result = {"idle_mib": run.steady_rss_kib(pid) / 1024}
        times = []
        for number in range(1, args.batches + 1):
            times = batch(port, args.scrapes, args.clients)
            result["after_%d_mib" % (number * args.scrapes)] = run.steady_rss_kib(pid) / 1024
        result["peak_mib"] = run.proc_status_kib(pid, "VmHWM") / 1024
        result["p50_ms"] = statistics.median(times) * 1000
        return result
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exporter", action="append", required=True)
    parser.add_argument("--brains", type=int, default=10000)
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--scrapes", type=int, default=600)
    parser.add_argument("--batches", type=int, default=2)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    workdir = tempfile.mkdtemp(prefix="scx-scrape-memory-", dir=base)
    try:
        fleet = run.Fleet(os.path.join(workdir, "fleet"), args.brains, args.blocks)
        results = run.rounds_of(args.exporter, args.rounds,
                                lambda exporter: measure(exporter, fleet, workdir, args))
        print("\nmedians over %d rounds, %d brains x %d blocks, %d clients, a connection a scrape:"
              % (args.rounds, args.brains, args.blocks, args.clients))
        run.print_medians(results)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
