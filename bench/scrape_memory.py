#!/usr/bin/env python3
"""What scrapes leave behind in the exporter's memory when each comes on a new
connection, so that they go round the HTTP server's worker threads (as scrapes by
several Prometheus servers, or through a proxy that does not keep connections, do).

For each binary given, in turn (ABAB...), the exporter is started on a fleet of
bench/run.py's shape (10,000 brains x 10 blocks by default) at --scan.interval=1h, so
that only its first scan runs. Once that scan is served:

  idle        VmRSS, the median of 20 samples over 5 s, before any scrape
  after N     the same after --scrapes scrapes of /metrics by --clients clients at
              once, each scrape on a connection of its own (bench/run.py's
              latencies), a third plain text, a third gzip, a third OpenMetrics;
              measured after each of --batches batches, so that a growth that goes
              on shows as one
  peak        VmHWM at the end
  p50         the median time of a plain scrape in the last batch

It prints each binary's medians over the rounds.

  python3 bench/scrape_memory.py --exporter=OLD --exporter=NEW [--brains=10000]
      [--blocks=10] [--scrapes=600] [--batches=2] [--clients=4] [--rounds=2]

The fleet is written once into a temporary folder.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: the fleet and the exporter helpers)

OPENMETRICS = "application/openmetrics-text; version=1.0.0"


def batch(port, scrapes, clients):
    """`scrapes` scrapes by `clients` clients at once, each on a connection of its own:
    a third plain text, then a third gzip, then a third OpenMetrics. Returns the median
    seconds of the plain ones."""
    per_client = max(1, scrapes // (3 * clients))
    plain_median = run.latencies(port, clients, per_client, False, 600)[0]
    run.latencies(port, clients, per_client, True, 600)
    run.latencies(port, clients, per_client, False, 600, accept=OPENMETRICS)
    return plain_median


def measure(exporter, fleet, workdir, args):
    server, port = run.start_exporter(exporter, fleet, workdir, interval="1h")
    try:
        run.wait_for_scans(port, server.proc, 1, 600)
        pid = server.proc.pid
        result = {"idle_mib": run.steady_rss_kib(pid) / 1024}
        plain_median = 0
        for number in range(1, args.batches + 1):
            plain_median = batch(port, args.scrapes, args.clients)
            result["after_%d_mib" % (number * args.scrapes)] = run.steady_rss_kib(pid) / 1024
        result["peak_mib"] = run.proc_status_kib(pid, "VmHWM") / 1024
        result["p50_ms"] = plain_median * 1000
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
    run.compare_on_fleet(
        args, "scx-scrape-memory-",
        "medians over %d rounds, %d brains x %d blocks, %d clients, a connection a scrape:"
        % (args.rounds, args.brains, args.blocks, args.clients),
        lambda exporter, fleet, workdir: measure(exporter, fleet, workdir, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
