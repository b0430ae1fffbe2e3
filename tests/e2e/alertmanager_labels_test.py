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
    ScanStale critical holds back the mismatch;
  - one failure, one page: ExporterDown holds back DaemonSetIncomplete of the same
    cluster and namespace, not another's.

Then renders alerts/skeleton-coherence.tmpl's group title with `amtool template
render` for five groups (exporters down across instances, brains of one exporter,
firing and resolved, no instance at all, a DaemonSet): each names what is firing.

Stops the Alertmanager it started by its PID. About 1 s.
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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from missing_tool import missing_tool  # noqa: E402  (tests/missing_tool.py)
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


def mismatch(inhibited, **labels):
    """A SkeletonCoherenceMismatch of brain m1nd (unless `brain` says otherwise)."""
    labels.setdefault("brain", "m1nd")
    return (alert("SkeletonCoherenceMismatch", "critical", expected_slug=labels["brain"],
                  **labels), inhibited)


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


def group(status_by_alert, common, group_labels):
    alerts = [{"status": status, "labels": labels, "annotations": {}}
              for status, labels in status_by_alert]
    firing = any(status == "firing" for status, _ in status_by_alert)
    return {"receiver": "pager", "status": "firing" if firing else "resolved",
            "groupLabels": group_labels, "commonLabels": common, "commonAnnotations": {},
            "alerts": alerts, "externalURL": "http://127.0.0.1:9093"}


DOWN, MISMATCH = "SkeletonCoherenceExporterDown", "SkeletonCoherenceMismatch"
TITLES = [
    (group([("firing", {"alertname": DOWN, "cluster": "eu", "instance": "node-1"}),
            ("firing", {"alertname": DOWN, "cluster": "eu", "instance": "node-2"})],
           {"alertname": "SkeletonCoherenceExporterDown", "cluster": "eu"},
           {"alertname": "SkeletonCoherenceExporterDown", "cluster": "eu", "job": JOB}),
     "SkeletonCoherenceExporterDown in eu: 2 firing (node-1, node-2)"),
    (group([("firing", {"alertname": MISMATCH, "instance": "node-1", "brain": "m1nd"}),
            ("firing", {"alertname": MISMATCH, "instance": "node-1", "brain": "notes"})],
           {"alertname": MISMATCH, "instance": "node-1"},
           {"alertname": MISMATCH, "instance": "node-1", "job": JOB}),
     "SkeletonCoherenceMismatch on node-1: 2 firing (m1nd, notes)"),
    (group([("firing", {"alertname": MISMATCH, "instance": "node-2", "brain": "m1nd"}),
            ("resolved", {"alertname": MISMATCH, "instance": "node-2", "brain": "notes"})],
           {"alertname": MISMATCH, "instance": "node-2"},
           {"alertname": MISMATCH, "instance": "node-2", "job": JOB}),
     "SkeletonCoherenceMismatch on node-2: 1 firing (m1nd); 1 resolved (notes)"),
    (group([("firing", {"alertname": "SkeletonCoherenceExporterAbsent"})],
           {"alertname": "SkeletonCoherenceExporterAbsent"},
           {"alertname": "SkeletonCoherenceExporterAbsent"}),
     "SkeletonCoherenceExporterAbsent: 1 firing"),
    (group([("firing", {"alertname": "SkeletonCoherenceDaemonSetIncomplete", "namespace": "scx",
                        "daemonset": "skeleton-coherence-exporter"})],
           {"alertname": "SkeletonCoherenceDaemonSetIncomplete", "namespace": "scx",
            "daemonset": "skeleton-coherence-exporter"},
           {"alertname": "SkeletonCoherenceDaemonSetIncomplete"}),
     "SkeletonCoherenceDaemonSetIncomplete: 1 firing (scx/skeleton-coherence-exporter)"),
]


def check_titles(source_dir, tmp):
    """The group titles of alerts/skeleton-coherence.tmpl, rendered by amtool."""
    amtool = shutil.which("amtool")
    if not amtool:
        return 0
    for index, (data, want) in enumerate(TITLES):
        path = os.path.join(tmp, "group-%d.json" % index)
        pathlib.Path(path).write_text(json.dumps(data))
        done = subprocess.run(
            [amtool, "template", "render",
             "--template.glob=" + str(source_dir / "alerts" / "skeleton-coherence.tmpl"),
             "--template.text={{ template \"skeleton_coherence.title\" . }}",
             "--template.data=" + path], capture_output=True, text=True, timeout=30)
        if done.returncode != 0 or done.stdout.strip() != want:
            fail("title of group %d: %r (%s), want %r"
                 % (index, done.stdout.strip(), done.stderr.strip(), want))
    return len(TITLES)


def key(labels):
    return tuple(sorted((k, v) for k, v in labels.items() if k not in ("job",)))


def main(source_dir):
    binary = shutil.which("alertmanager") or shutil.which("prometheus-alertmanager")
    if not binary:
        return missing_tool("alertmanager_labels_test", "alertmanager not installed")
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
        mismatch(True, instance="node-1"),
        (alert(M, "critical", instance="node-5", brain="a", expected_slug="a"), False),
        (alert(M, "critical", instance="node-5", brain="b", expected_slug="b"), False),
        # two sites
        (alert(D, "critical", cluster="eu", instance="node-9"), False),
        mismatch(True, cluster="eu", instance="node-9"),
        mismatch(False, cluster="us", instance="node-9"),
        mismatch(False, instance="node-9"),
        mismatch(False, cluster="eu", instance="node-2"),
        mismatch(False, cluster="us", instance="node-2"),
        (alert(D, "critical", cluster="eu", instance="node-7"), False),
        (alert(D, "critical", cluster="us", instance="node-8"), False),
        # severities: a warning never holds back a page
        (alert(S, "warning", instance="node-3"), False),
        mismatch(False, instance="node-3"),
        (alert(U, "warning", instance="node-3", brain="notes"), True),
        (alert(S, "critical", instance="node-4"), False),
        mismatch(True, instance="node-4"),
    ]
    # A target gone from discovery is a ticket: it holds back its exporter's warnings,
    # never its pages.
    T = "SkeletonCoherenceExporterTargetMissing"
    cases += [(alert(T, "warning", instance="node-6"), False),
              mismatch(False, instance="node-6"),
              (alert(U, "warning", instance="node-6", brain="notes"), True)]
    # One crash-looping pod, one page: its ExporterDown holds back the DaemonSet's
    # page of the same cluster and namespace (kube-state-metrics' job, no instance of
    # the exporter), not another cluster's.
    ds = "SkeletonCoherenceDaemonSetIncomplete"

    def daemonset(inhibited, **labels):
        return ({"labels": dict(alertname=ds, severity="critical", job="kube-state-metrics",
                                instance="10.0.0.5:8080", daemonset="skeleton-coherence-exporter",
                                **labels),
                 "annotations": {"summary": ds}}, inhibited)
    cases += [(alert(D, "critical", cluster="ap", instance="node-11", namespace="scx"), False),
              daemonset(True, cluster="ap", namespace="scx"),
              daemonset(False, cluster="us", namespace="scx"),
              daemonset(False, cluster="ap", namespace="elsewhere")]
    # A critical ScanStale also fires its warning band: held back by it (rule 4).
    cases.append((alert(S, "warning", instance="node-4"), True))
    with tempfile.TemporaryDirectory(prefix="scx-am-labels-") as tmp:
        config = os.path.join(tmp, "alertmanager.yml")
        pathlib.Path(config).write_text(text)
        shutil.copy(source_dir / "alerts" / "skeleton-coherence.tmpl", tmp)
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
                    a["labels"].get("brain") or a["labels"]["instance"]
                    for a in group["alerts"])
            want_groups = [
                ((("alertname", M), ("instance", "node-5"), ("job", JOB)), {"a", "b"}),
                ((("alertname", M), ("cluster", "eu"), ("instance", "node-2"), ("job", JOB)),
                 {"m1nd"}),
                ((("alertname", M), ("cluster", "us"), ("instance", "node-2"), ("job", JOB)),
                 {"m1nd"}),
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
        titles = check_titles(source_dir, tmp)
    print("alertmanager_labels_test: PASS: %d alerts, inhibition and grouping as designed "
          "with and without `cluster`; %d group titles name what fires (%.1f s)"
          % (len(cases), titles, time.monotonic() - began))
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve()))
