#!/usr/bin/env python3
"""A cold scan's time while the HTTP server is flooded with connections.

The HTTP server's master thread accepts, and the connection guard
(exporter/http/connection_guard.h) admits or refuses, every connection while the
scan threads read brain files. This measures what the flood costs a scan: for each
binary given, in
turn (ABAB...), the exporter is started on a fleet of bench/run.py's shape and its
first scan (cold: every manifest and store read and closed) is timed
(skeleton_coherence_exporter_scan_duration_seconds), once with nobody connected,
once while CHURNERS processes connect and drop connections as fast as they can and
IDLE connections stay open. It prints each binary's medians and its ratio of
flooded to quiet, measured in the same run.

  python3 bench/scan_under_flood.py --exporter=OLD --exporter=NEW [--brains=10000]

The fleet is written once into a temporary folder (about 190 MB at 10,000 x 10).
"""

import argparse
import multiprocessing
import os
import shutil
import socket
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: the fleet and the exporter helpers)

IDLE = 1000
CHURNERS = 2


def churn(port, stop_at):
    """Connects and drops a connection to `port`, as fast as it can, until stop_at."""
    while time.monotonic() < stop_at:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                pass
        except OSError:
            time.sleep(0.01)


def hold_idle(port, count):
    """`count` open connections to `port` that send nothing."""
    held = []
    for _ in range(count):
        try:
            held.append(socket.create_connection(("127.0.0.1", port), timeout=1))
        except OSError:
            break
    return held


def first_scan_seconds(exporter, fleet, workdir, flood):
    server, port = run.start_exporter(exporter, fleet, workdir, interval="1h")
    churners, held = [], []
    try:
        if flood:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # listening: the first scan has begun
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.005)
            stop_at = time.monotonic() + 120
            churners = [multiprocessing.Process(target=churn, args=(port, stop_at))
                        for _ in range(CHURNERS)]
            for process in churners:
                process.start()
            held = hold_idle(port, IDLE)
        text = run.wait_for_scans(port, server.proc, 1, 300)
        return run.metric_value(text, "skeleton_coherence_exporter_scan_duration_seconds")
    finally:
        for process in churners:
            process.terminate()
            process.join()
        for connection in held:
            connection.close()
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exporter", action="append", required=True,
                        help="a binary to measure; give two to compare them")
    parser.add_argument("--brains", type=int, default=10000)
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="scx-flood-bench-")
    try:
        fleet = run.Fleet(os.path.join(workdir, "fleet"), args.brains, args.blocks)
        times = {(binary, flood): [] for binary in args.exporter for flood in (False, True)}
        for _ in range(args.rounds):
            for binary in args.exporter:
                for flood in (False, True):
                    times[(binary, flood)].append(
                        first_scan_seconds(binary, fleet, workdir, flood))
        print("cold scan of %d brains x %d blocks, median of %d rounds; flood: %d processes "
              "connecting and dropping, %d idle connections"
              % (args.brains, args.blocks, args.rounds, CHURNERS, IDLE))
        print("| binary | quiet | flooded | flooded / quiet |")
        print("| --- | --- | --- | --- |")
        for binary in args.exporter:
            quiet = statistics.median(times[(binary, False)])
            flooded = statistics.median(times[(binary, True)])
            print("| %s | %.3f s | %.3f s | %.2fx |" % (binary, quiet, flooded, flooded / quiet))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
