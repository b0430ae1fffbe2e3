#!/usr/bin/env python3
"""An HA pair of Prometheus servers sends one alert per brain (alerts/ha/prometheus.yml).

Starts, on 127.0.0.1 only:
  - a tiny HTTP server of its own serving a fixed /metrics: two brains (m1nd, notes)
    of one exporter in mismatch, as the exporter exports them;
  - one Alertmanager on a copy of alerts/alertmanager.yml (webhooks pointed at a port
    nothing listens on: this test reads Alertmanager's API);
  - two Prometheus servers on copies of alerts/ha/prometheus.yml, replica a and b
    (its `external_labels` and `alert_relabel_configs` as checked in; the scrape
    target, the Alertmanager and 1 s intervals replaced), loading a copy of
    alerts/skeleton-coherence.rules.yml with SkeletonCoherenceMismatch's `for:` at 0s.
Waits until both servers have sent alerts to the Alertmanager, then checks that it
holds exactly one SkeletonCoherenceMismatch per brain, without a `replica` label and
with `cluster`. Without the labeldrop it holds two per brain (one per replica).

Stops what it started by PID. About 5 s. Usage: ha_dedup_test.py SOURCE_DIR
Exit status: 0 pass, 1 fail, 77 skipped (prometheus or alertmanager not installed).
"""
import http.server
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from missing_tool import missing_tool  # noqa: E402  (tests/missing_tool.py)
START_TIMEOUT = 30
ALERT_TIMEOUT = 30
MISMATCH = "SkeletonCoherenceMismatch"
BRAINS = ("m1nd", "notes")
METRICS = "".join(
    'skeleton_coherence{brain="%s",expected_slug="%s",found_slug="keyvault"} 0\n'
    'skeleton_coherence_brain_state{brain="%s",state="mismatch"} 1\n'
    'skeleton_coherence_brain_state{brain="%s",state="ok"} 0\n' % (b, b, b, b)
    for b in BRAINS).encode()


def fail(message):
    print("ha_dedup_test: FAIL: " + message, flush=True)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


class Metrics(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(METRICS)))
        self.end_headers()
        self.wfile.write(METRICS)

    def log_message(self, format, *args):
        pass


def wait_ready(name, url, process, log):
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            fail("%s exited with %d: %s" % (name, process.returncode,
                                            pathlib.Path(log).read_text()[-2000:]))
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except (urllib.error.URLError, OSError):
            if time.monotonic() > deadline:
                fail("%s not ready after %ds" % (name, START_TIMEOUT))
            time.sleep(0.1)


def main(source_dir):
    prometheus = shutil.which("prometheus")
    alertmanager = shutil.which("alertmanager") or shutil.which("prometheus-alertmanager")
    if not prometheus or not alertmanager:
        return missing_tool("ha_dedup_test", "prometheus or alertmanager not installed")
    began = time.monotonic()
    ha = (source_dir / "alerts" / "ha" / "prometheus.yml").read_text()
    if "alert_relabel_configs" not in ha or "replica: a" not in ha:
        fail("alerts/ha/prometheus.yml changed shape")
    rules = (source_dir / "alerts" / "skeleton-coherence.rules.yml").read_text()
    rules, count = re.subn(r"(- alert: %s\n(?:.*\n)*?\s+for: )1m" % MISMATCH, r"\g<1>0s", rules)
    if count != 1:
        fail("could not shorten %s's for:" % MISMATCH)
    am_text = (source_dir / "alerts" / "alertmanager.yml").read_text()
    am_text = re.sub(r"http://127\.0\.0\.1:9095/", "http://127.0.0.1:%d/" % free_port(), am_text)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Metrics)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    target = "127.0.0.1:%d" % server.server_address[1]
    processes = []
    with tempfile.TemporaryDirectory(prefix="scx-ha-") as tmp:
        try:
            am_port = free_port()
            pathlib.Path(tmp, "alertmanager.yml").write_text(am_text)
            log = os.path.join(tmp, "alertmanager.log")
            processes.append(subprocess.Popen(
                [alertmanager, "--config.file=" + os.path.join(tmp, "alertmanager.yml"),
                 "--storage.path=" + os.path.join(tmp, "am-data"),
                 "--web.listen-address=127.0.0.1:%d" % am_port, "--cluster.listen-address="],
                stdout=open(log, "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
            am_url = "http://127.0.0.1:%d" % am_port
            wait_ready("alertmanager", am_url + "/-/ready", processes[-1], log)
            urls = []
            for replica in ("a", "b"):
                d = os.path.join(tmp, "prometheus-" + replica)
                os.makedirs(d)
                pathlib.Path(d, "skeleton-coherence.rules.yml").write_text(rules)
                config = ha.replace("replica: a", "replica: %s" % replica)
                config = re.sub(r"(?m)^(\s*(?:scrape|evaluation)_interval:\s*)\S+",
                                r"\g<1>1s", config)
                config = config.replace("['alertmanager-1:9093', 'alertmanager-2:9093']",
                                        "['127.0.0.1:%d']" % am_port)
                config = config.replace("['host-a:9864']", "['%s']" % target)
                pathlib.Path(d, "prometheus.yml").write_text(config)
                port = free_port()
                log = os.path.join(d, "prometheus.log")
                processes.append(subprocess.Popen(
                    [prometheus, "--config.file=" + os.path.join(d, "prometheus.yml"),
                     "--storage.tsdb.path=" + os.path.join(d, "data"),
                     "--web.listen-address=127.0.0.1:%d" % port],
                    stdout=open(log, "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
                urls.append(("http://127.0.0.1:%d" % port, processes[-1], log))
            for url, process, log in urls:
                wait_ready("prometheus", url + "/-/ready", process, log)

            def sent(url):
                """Alerts this server has sent to Alertmanager (its own /metrics)."""
                with urllib.request.urlopen(url + "/metrics", timeout=5) as response:
                    text = response.read().decode()
                return sum(float(v) for v in re.findall(
                    r"(?m)^prometheus_notifications_sent_total\{[^}]*\} (\S+)$", text))
            deadline = time.monotonic() + ALERT_TIMEOUT
            while True:
                alerts = [a for a in get_json(am_url + "/api/v2/alerts")
                          if a["labels"].get("alertname") == MISMATCH]
                counts = [sent(url) for url, _, _ in urls]
                if len(alerts) >= len(BRAINS) and all(c >= 1 for c in counts):
                    break
                if time.monotonic() > deadline:
                    fail("after %ds: %d mismatch alerts, notifications sent %s"
                         % (ALERT_TIMEOUT, len(alerts), counts))
                time.sleep(0.3)
            time.sleep(1.5)  # one more evaluation and send of each server
            alerts = [a for a in get_json(am_url + "/api/v2/alerts")
                      if a["labels"].get("alertname") == MISMATCH]
            per_brain = {b: [a for a in alerts if a["labels"].get("brain") == b] for b in BRAINS}
            if any(len(v) != 1 for v in per_brain.values()) or len(alerts) != len(BRAINS):
                fail("alerts per brain: %s" % {b: [a["labels"] for a in v]
                                               for b, v in per_brain.items()})
            for a in alerts:
                if "replica" in a["labels"] or a["labels"].get("cluster") != "eu":
                    fail("alert labels %s: want cluster eu and no replica" % a["labels"])
        finally:
            for process in reversed(processes):
                process.terminate()
            for process in reversed(processes):
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=5)
            server.shutdown()
            server.server_close()
    print("ha_dedup_test: PASS: replicas a and b both sent, Alertmanager holds one %s per "
          "brain (%s), no replica label (%.1f s)"
          % (MISMATCH, ", ".join(BRAINS), time.monotonic() - began), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve()))
