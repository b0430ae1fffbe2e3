#!/usr/bin/env python3
"""The /metrics body through strict parsers, as a scraper reads it.

Starts the exporter (127.0.0.1, a free port) on the incident example of examples/ and
a small fleet of static brains whose labels hold what the format must escape (quotes,
backslashes, a newline, UTF-8), in every state (ok, mismatch, absent, unreadable),
with --metrics.store-details (the per-brain counters). Then:
  - with Prometheus' Accept header, plain and gzip: OpenMetrics 1.0.0's Content-Type,
    and the body through python3-prometheus-client's OpenMetrics parser
    (prometheus_client.openmetrics.parser, which refuses what the standard does not
    allow: a counter's family named with _total, a missing "# EOF", a unit that does
    not end the name, a blank line ...), with the incident's series in it;
  - with no Accept header: the text format 0.0.4, through the same package's text
    parser, with the same samples and no "# EOF".
Exit status 77 (skipped) when the parser is not installed, 1 under CI=true.

  openmetrics_parse_test.py EXPORTER SOURCE_DIR
"""

import gzip
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

# tests/, for missing_tool.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from missing_tool import missing_tool  # noqa: E402

TEST = "openmetrics_parse_test"
PROMETHEUS_ACCEPT = ("application/openmetrics-text;version=1.0.0,"
                     "application/openmetrics-text;version=0.0.1;q=0.75,"
                     "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
START_TIMEOUT = 10


class Failure(Exception):
    pass


def store(slug, blocks=("core",)):
    return {
        "schema": "m1nd-system-block-store-v0",
        "store_version": 3,
        "skeleton": {"skeleton_id": "sk_%s_candidate" % slug, "version": 1,
                     "state": "candidate"},
        "blocks": [{"block_id": "sb_%s_%s_1a2b" % (slug, b), "name": b} for b in blocks],
        "unmapped_policy": {"visible": True,
                            "default_action": "leave_unmapped_until_ratified"},
    }


def yaml_string(text):
    return json.dumps(text)  # JSON strings are YAML strings


def write_fleet(tmp, source_dir):
    """A config: examples/ (read in place: the exporter only reads) and static brains
    with odd labels. Returns its path."""
    brains = []
    odd = [
        ("quote", 'repo "quoted"', "ok"),
        ("backslash", "C:\\repos\\back", "mismatch"),
        ("newline", "two\nlines", "absent"),
        ("utf8", "caf\u00e9-\u6f22\u5b57", "unreadable"),
    ]
    for index, (name, root_name, state) in enumerate(odd):
        runtime = os.path.join(tmp, "rt%d" % index)
        os.mkdir(runtime)
        path = os.path.join(runtime, "system_blocks.json")
        if state == "ok":
            slug = "repo_quoted"
            with open(path, "w") as out:
                json.dump(store(slug), out)
        elif state == "mismatch":
            with open(path, "w") as out:
                json.dump(store("keyvault"), out)
        elif state == "unreadable":
            with open(path, "w") as out:
                out.write('{"schema": "m1nd-system-block-store-v0", "store_version": ')
        brains.append("  - name: %s\n    project_root: %s\n    runtime_dir: %s\n"
                      % (yaml_string(name), yaml_string("/home/dev/" + root_name),
                         yaml_string(runtime)))
    config = os.path.join(tmp, "config.yml")
    with open(config, "w") as out:
        out.write("m1nd_registries: [%s]\n"
                  % yaml_string(os.path.join(source_dir, "examples", "registry")))
        out.write("brains:\n" + "".join(brains))
    return config


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, dict(response.headers), response.read()


def wait_ready(url, process):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise Failure("the exporter exited with status %d" % process.returncode)
        try:
            if get(url)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise Failure("the exporter was not ready within %ds" % START_TIMEOUT)


def check_openmetrics(body, openmetrics_parser):
    text = body.decode("utf-8")
    if not text.endswith("# EOF\n"):
        raise Failure("the OpenMetrics body does not end with # EOF")
    families = {f.name: f for f in openmetrics_parser.text_string_to_metric_families(text)}
    want_types = {
        "skeleton_coherence": "gauge",
        "skeleton_coherence_brain": "info",
        "skeleton_coherence_brain_state": "gauge",
        "skeleton_coherence_store_read_errors": "counter",
        "skeleton_coherence_mismatch_since_seconds": "gauge",
        "skeleton_coherence_exporter_build": "info",
        "skeleton_coherence_exporter_scans": "counter",
        "skeleton_coherence_exporter_scan_seconds": "histogram",
        "skeleton_coherence_exporter_http_requests": "counter",
        "skeleton_coherence_exporter_scrapes_in_flight": "gauge",
        "process_cpu_seconds": "counter",
        "process_virtual_memory_max_bytes": "gauge",
    }
    for name, kind in want_types.items():
        if name not in families or families[name].type != kind:
            raise Failure("family %s: %s, want type %s" % (
                name, families[name].type if name in families else "missing", kind))
    if families["process_cpu_seconds"].unit != "seconds":
        raise Failure("process_cpu_seconds has unit %r" % families["process_cpu_seconds"].unit)
    incident = [s for s in families["skeleton_coherence"].samples
                if s.labels.get("brain") == "m1nd"]
    if [(s.labels["expected_slug"], s.labels["found_slug"], s.value) for s in incident] \
            != [("m1nd", "keyvault", 0)]:
        raise Failure("the incident's series is %s" % incident)
    roots = {s.labels["project_root"] for s in families["skeleton_coherence_brain"].samples}
    for root in ('/home/dev/repo "quoted"', "/home/dev/C:\\repos\\back", "/home/dev/two\nlines",
                 "/home/dev/caf\u00e9-\u6f22\u5b57"):
        if root not in roots:
            raise Failure("project_root %r did not come back through the parser: %s"
                          % (root, sorted(roots)))
    return families


def samples_of(families):
    return sorted((s.name, tuple(sorted(s.labels.items())), s.value)
                  for f in families.values() for s in f.samples
                  if "in_flight" not in s.name and "http_requests" not in s.name
                  and not s.name.startswith("process_"))


def run(exporter, source_dir, tmp):
    try:
        from prometheus_client import parser as text_parser
        from prometheus_client.openmetrics import parser as openmetrics_parser
    except ImportError:
        return missing_tool(TEST, "python3-prometheus-client is not installed")
    config = write_fleet(tmp, source_dir)
    port = free_port()
    url = "http://127.0.0.1:%d" % port
    log = open(os.path.join(tmp, "exporter.log"), "w")
    process = subprocess.Popen(
        [exporter, "--web.listen-address=127.0.0.1:%d" % port, "--config.file=" + config,
         "--metrics.store-details", "--scan.interval=1h"],
        stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_ready(url + "/-/ready", process)
        status, headers, body = get(url + "/metrics", {"Accept": PROMETHEUS_ACCEPT})
        if headers.get("Content-Type") != \
                "application/openmetrics-text; version=1.0.0; charset=utf-8":
            raise Failure("Content-Type %r for Prometheus' Accept header"
                          % headers.get("Content-Type"))
        families = check_openmetrics(body, openmetrics_parser)
        _, headers, zipped = get(url + "/metrics", {"Accept": PROMETHEUS_ACCEPT,
                                                    "Accept-Encoding": "gzip"})
        if headers.get("Content-Encoding") != "gzip":
            raise Failure("no gzip for Accept-Encoding: gzip")
        check_openmetrics(gzip.decompress(zipped), openmetrics_parser)

        _, headers, plain = get(url + "/metrics")
        if headers.get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8":
            raise Failure("Content-Type %r with no Accept header" % headers.get("Content-Type"))
        text = plain.decode("utf-8")
        if "# EOF" in text:
            raise Failure("the text format has an # EOF line")
        text_families = {f.name: f for f in text_parser.text_string_to_metric_families(text)}
        if samples_of(text_families) != samples_of(families):
            raise Failure("the text format and OpenMetrics have different samples")
        print("%s: OK: %d families in OpenMetrics, plain and gzip; the same samples in the "
              "text format" % (TEST, len(families)))
        return 0
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="scx-openmetrics-") as tmp:
        try:
            return run(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), tmp)
        except Failure as failure:
            print("%s: FAIL: %s" % (TEST, failure))
            log = os.path.join(tmp, "exporter.log")
            if os.path.exists(log):
                with open(log) as text:
                    print(text.read()[-3000:])
            return 1


if __name__ == "__main__":
    sys.exit(main())
