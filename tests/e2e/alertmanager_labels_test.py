#!/usr/bin/env python3
"""The example Alertmanager config on a real Alertmanager: site labels, inhibition
and severities, with alerts posted to its API (no Prometheus, no exporter).

Runs `alertmanager` (or Debian's `prometheus-alertmanager`) on 127.0.0.1 with a
temporary copy of alerts/alertmanager.yml (only the webhook port changed, to one
nothing listens on: this test reads Alertmanager's API, not notifications), posts
alerts to /api/v2/alerts and reads back which are inhibited (/api/v2/alerts, status
inhibitedBy) and how they are grouped (/api/v2/alerts/groups):

  - single site, no `cluster` label on either alert: ExporterDown of node-1 holds
    back node-1's mismatch (a label absent on both sides counts as equal), and two
    brains of node-5 are one group;
  - two sites: ExporterDown of eu's node-9 holds back eu's node-9 mismatch, not us's
    node-9 mismatch, nor one without `cluster`; eu's and us's node-2 mismatches are
    two groups; ExporterDown of two eu nodes is one group, us's another;
  - severities: a ScanStale warning, or a TargetMissing ticket, does not hold back a
    mismatch page of its exporter but does hold back its StoreUnreadable warning; a
    ScanStale critical holds back the mismatch.

Stops the Alertmanager it started by its PID. About 2 s.
Usage: alertmanager_labels_test.py SOURCE_DIR
Exit status: 0 pass, 1 fail, 77 skipped (no Alertmanager installed).
"""
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SKIP = 77
START_TIMEOUT = 20
SETTLE_TIMEOUT = 10
JOB = "skeleton-coherence"


def fail(message):
    print("alertmanager_labels_test: FAIL: " + message, flush=True)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(base, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        text = response.read()
    return json.loads(text) if text else None


def alert(alertname, severity, **labels):
    return {"labels": dict(alertname=alertname, severity=severity, job=JOB, **labels),
            "annotations": {"summary": alertname}}


def start_alertmanager(binary, config, tmp):
    port = free_port()
    log = open(os.path.join(tmp, "alertmanager.log"), "wb")
    process = subprocess.Popen(
        [binary, "--config.file=" + config, "--storage.path=" + os.path.join(tmp, "data"),
         "--web.listen-address=127.0.0.1:%d" % port, "--cluster.listen-address="],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = "http://127.0.0.1:%d" % port
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            fail("alertmanager exited with %d: %s" % (
                process.returncode, pathlib.Path(tmp, "alertmanager.log").read_text()[-2000:]))
        try:
            urllib.request.urlopen(base + "/-/ready", timeout=2).read()
            return process, base
        except (urllib.error.URLError, OSError):
            if time.monotonic() > deadline:
                fail("alertmanager not ready after %ds" % START_TIMEOUT)
            time.sleep(0.1)


def key(labels):
    return tuple(sorted((k, v) for k, v in labels.items() if k not in ("job",)))


def main(source_dir):
    binary = shutil.which("alertmanager") or shutil.which("prometheus-alertmanager")
    if not binary:
        print("alertmanager_labels_test: SKIP: alertmanager not installed")
        return SKIP
    began = time.monotonic()
    text = (source_dir / "alerts" / "alertmanager.yml").read_text()
    text, urls = re.subn(r"http://127\.0\.0\.1:9095/", "http://127.0.0.1:%d/" % free_port(), text)
    if urls < 2:
        fail("alerts/alertmanager.yml changed shape: no webhook on 127.0.0.1:9095")
    # (alert, inhibited?) pairs; node names repeat across the scenarios on purpose
    # only where a scenario needs it.
    M, D = "SkeletonCoherenceMismatch", "SkeletonCoherenceExporterDown"
    S, U = "SkeletonCoherenceScanStale", "SkeletonCoherenceStoreUnreadable"
    cases = [
        # single site: no cluster anywhere
        (alert(D, "critical", instance="node-1"), False),
        (alert(M, "critical", instance="node-1", brain="m1nd", expected_slug="m1nd"), True),
        (alert(M, "critical", instance="node-5", brain="a", expected_slug="a"), False),
        (alert(M, "critical", instance="node-5", brain="b", expected_slug="b"), False),
        # two sites
        (alert(D, "critical", cluster="eu", instance="node-9"), False),
        (alert(M, "critical", cluster="eu", instance="node-9", brain="m1nd", expected_slug="m1nd"), True),
        (alert(M, "critical", cluster="us", instance="node-9", brain="m1nd", expected_slug="m1nd"), False),
        (alert(M, "critical", instance="node-9", brain="m1nd", expected_slug="m1nd"), False),
        (alert(M, "critical", cluster="eu", instance="node-2", brain="m1nd", expected_slug="m1nd"), False),
        (alert(M, "critical", cluster="us", instance="node-2", brain="m1nd", expected_slug="m1nd"), False),
        (alert(D, "critical", cluster="eu", instance="node-7"), False),
        (alert(D, "critical", cluster="us", instance="node-8"), False),
        # severities: a warning never holds back a page
        (alert(S, "warning", instance="node-3"), False),
        (alert(M, "critical", instance="node-3", brain="m1nd", expected_slug="m1nd"), False),
        (alert(U, "warning", instance="node-3", brain="notes"), True),
        (alert(S, "critical", instance="node-4"), False),
        (alert(M, "critical", instance="node-4", brain="m1nd", expected_slug="m1nd"), True),
    ]
    # A target gone from discovery is a ticket: it holds back its exporter's warnings,
    # never its pages.
    T = "SkeletonCoherenceExporterTargetMissing"
    cases += [(alert(T, "warning", instance="node-6"), False),
              (alert(M, "critical", instance="node-6", brain="m1nd", expected_slug="m1nd"), False),
              (alert(U, "warning", instance="node-6", brain="notes"), True)]
    # A critical ScanStale also fires its warning band: held back by it (rule 4).
    cases.append((alert(S, "warning", instance="node-4"), True))
    with tempfile.TemporaryDirectory(prefix="scx-am-labels-") as tmp:
        config = os.path.join(tmp, "alertmanager.yml")
        pathlib.Path(config).write_text(text)
        process, base = start_alertmanager(binary, config, tmp)
        try:
            api(base, "/api/v2/alerts", [a for a, _ in cases])
            want = {key(a["labels"]): inhibited for a, inhibited in cases}
            deadline = time.monotonic() + SETTLE_TIMEOUT
            while True:
                got = {key(a["labels"]): bool(a["status"]["inhibitedBy"])
                       for a in api(base, "/api/v2/alerts")}
                if got == want or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            wrong = ["%s: inhibited %s, want %s" % (dict(k), got.get(k), v)
                     for k, v in want.items() if got.get(k) != v]
            if wrong:
                fail("inhibition:\n  " + "\n  ".join(wrong))
            groups = {}
            for group in api(base, "/api/v2/alerts/groups"):
                labels = tuple(sorted(group["labels"].items()))
                groups.setdefault(labels, set()).update(
                    a["labels"].get("brain") or a["labels"]["instance"] for a in group["alerts"])
            want_groups = [
                ((("alertname", M), ("instance", "node-5"), ("job", JOB)), {"a", "b"}),
                ((("alertname", M), ("cluster", "eu"), ("instance", "node-2"), ("job", JOB)), {"m1nd"}),
                ((("alertname", M), ("cluster", "us"), ("instance", "node-2"), ("job", JOB)), {"m1nd"}),
                ((("alertname", D), ("cluster", "eu"), ("job", JOB)), {"node-7", "node-9"}),
                ((("alertname", D), ("cluster", "us"), ("job", JOB)), {"node-8"}),
                ((("alertname", D), ("job", JOB)), {"node-1"}),
            ]
            for labels, members in want_groups:
                if groups.get(labels) != members:
                    fail("group %s holds %s, want %s (all groups: %s)"
                         % (dict(labels), groups.get(labels), members, groups))
        finally:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
    print("alertmanager_labels_test: PASS: %d alerts, inhibition and grouping as designed "
          "with and without `cluster` (%.1f s)" % (len(cases), time.monotonic() - began))
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve()))
