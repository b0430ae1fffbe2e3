#!/usr/bin/env python3
"""What a serving exporter costs its host at rest: threads, CPU share, memory, and
the time from SIGTERM to exit.

For each binary given, in turn (ABAB...), the exporter is started on a fleet of
bench/run.py's shape (10,000 brains x 1 block by default) with a 15 s scan
interval, as the shipped unit runs it. Once its first scan is served it is left
alone for --seconds (nobody scrapes it), and then:

  threads     /proc/PID/task entries at the end of the quiet window
  CPU share   user + system CPU time over the quiet window, divided by its length
              (the warm scans every 15 s are all it does)
  RSS         VmRSS at the end of the window, and VmHWM (the peak so far)
  stop        SIGTERM to the process's exit, with one idle keep-alive connection
              open (as Prometheus keeps one), measured --stops times

It prints each binary's medians over the rounds.

  python3 bench/host_cost.py --exporter=OLD --exporter=NEW [--brains=10000]
      [--seconds=60] [--rounds=2]

The fleet is written once into a temporary folder.
"""

import argparse
import os
import signal
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: the fleet and the exporter helpers)

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User + system CPU time of process pid so far (all its threads)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def threads_of(pid):
    return len(os.listdir("/proc/%d/task" % pid))


def idle_keep_alive(port):
    """A connection that has been served once and stays open, as Prometheus keeps."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(b"GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n")
    sock.recv(4096)
    return sock


def measure(exporter, fleet, workdir, seconds, stops):
    server, port = run.start_exporter(exporter, fleet, workdir, interval="15s")
    try:
        run.wait_for_scans(port, server.proc, 1, 600)
        pid = server.proc.pid
        started_cpu, started_at = cpu_seconds(pid), time.monotonic()
        time.sleep(seconds)
        result = {
            "threads": threads_of(pid),
            "cpu_share": (cpu_seconds(pid) - started_cpu) / (time.monotonic() - started_at),
            "rss_mib": run.proc_status_kib(pid, "VmRSS") / 1024,
            "hwm_mib": run.proc_status_kib(pid, "VmHWM") / 1024,
        }
    finally:
        server.stop()
    result["stop_ms"] = statistics.median(
        stop_ms(exporter, fleet, workdir) for _ in range(stops))
    return result


def stop_ms(exporter, fleet, workdir):
    server, port = run.start_exporter(exporter, fleet, workdir, interval="15s")
    try:
        run.wait_for_scans(port, server.proc, 1, 600)
        held = idle_keep_alive(port)
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(timeout=30)
        took = (time.monotonic() - signalled) * 1000
        held.close()
        return took
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exporter", action="append", required=True)
    parser.add_argument("--brains", type=int, default=10000)
    parser.add_argument("--blocks", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--stops", type=int, default=5)
    args = parser.parse_args()
    run.compare_on_fleet(
        args, "scx-host-cost-",
        "medians over %d rounds, %d brains x %d blocks, --scan.interval=15s, %g s quiet:"
        % (args.rounds, args.brains, args.blocks, args.seconds),
        lambda exporter, fleet, workdir: measure(exporter, fleet, workdir, args.seconds,
                                                 args.stops))
    return 0


if __name__ == "__main__":
    sys.exit(main())
