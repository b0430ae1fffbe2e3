#!/usr/bin/env python3
"""See the page, in one command: the incident of examples/ paging a webhook, and its fix.

Runs the exporter, a real Prometheus and a real Alertmanager (Debian's `prometheus` and
`prometheus-alertmanager`) on free loopback ports in a temporary folder, with the
SHIPPED rules (alerts/skeleton-coherence.rules.yml) and the SHIPPED Alertmanager config
(alerts/alertmanager.yml and alerts/skeleton-coherence.tmpl), and a small webhook
receiver of its own standing in for the pager. Then:

  1. copies examples/ to the temporary folder and makes its brain m1nd healthy (its own
     sk_m1nd_candidate store), as m1nd writes it: system_blocks.json.tmp, renamed over;
  2. writes the incident the same way: m1nd's store now serves sk_keyvault_candidate;
  3. waits for the page and prints it as the receiver got it (both slugs, the runbook
     link), and GETs the runbook link: a link to this exporter must answer 200;
  4. fixes the brain (its own skeleton back) and prints the RESOLVED notification;
  5. stops everything it started, by PID (also on Ctrl-C and on error).

--fast (the default) shortens only time windows, in temporary copies, and prints each
change: SkeletonCoherenceMismatch `for: 1m` becomes 2s, and every Alertmanager
group_wait/group_interval 1s (repeat_interval 1h); the copied rules are checked with
`promtool check rules`. The webhook URLs (127.0.0.1:9095) point at the receiver. With
--no-fast the shipped windows stay (the page then takes over a minute, the resolved
notification up to group_interval, 5m). Scans, scrapes and rule evaluations run every
second in both modes. Nothing is installed; a missing tool is named with its package.

Exit status: 0 when the page and its resolution arrived, 1 otherwise.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

import alert_pipeline as ap

ap.LOG_NAME = "demo-page"
MISMATCH = "SkeletonCoherenceMismatch"
FAST_FOR = "2s"
PAGE_TIMEOUT = 60
RESOLVE_TIMEOUT = 60
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = {"prometheus": "prometheus", "prometheus-alertmanager": "prometheus-alertmanager",
            "promtool": "prometheus"}
EXPORTER_CANDIDATES = ("build-example/bin/skeleton-coherence-exporter",
                       "build/bin/skeleton-coherence-exporter")


def store(slug, version):
    """A system_blocks.json minted for `slug`, as m1nd writes it."""
    return {
        "schema": "m1nd-system-block-store-v0",
        "store_version": version,
        "skeleton": {"skeleton_id": "sk_%s_candidate" % slug, "version": 1,
                     "state": "candidate"},
        "blocks": [{"block_id": "sb_%s_core_1a2b3c4d" % slug, "name": "Core"}],
        "unmapped_policy": {"visible": True,
                            "default_action": "leave_unmapped_until_ratified"},
    }


def find_exporter(explicit):
    if explicit:
        return os.path.abspath(explicit) if os.access(explicit, os.X_OK) else None
    for candidate in EXPORTER_CANDIDATES:
        path = os.path.join(SOURCE_DIR, candidate)
        if os.access(path, os.X_OK):
            return path
    return shutil.which("skeleton-coherence-exporter")


def tools(args):
    """{name: path}; prints what is missing and which package has it, and exits 1."""
    found = {"prometheus": ap.find_tool(args.prometheus, ["prometheus"]),
             "prometheus-alertmanager": ap.find_tool(args.alertmanager,
                                                     ["prometheus-alertmanager"]),
             "promtool": ap.find_tool(None, ["promtool"]),
             "exporter": find_exporter(args.exporter)}
    missing = [name for name, path in found.items() if not path]
    for name in missing:
        if name == "exporter":
            print("demo-page: no skeleton-coherence-exporter binary: run ./scripts/run-example.sh "
                  "first (it builds build-example/), or pass --exporter PATH")
        else:
            print("demo-page: %s is not installed: install the Debian package %s "
                  "(./scripts/install-deps.sh --test installs it with its service kept off)"
                  % (name, PACKAGES[name]))
    if missing:
        sys.exit(1)
    return found


def shorten(text, fast, webhook_port):
    """The shipped texts with the time windows shortened (fast) and the webhooks
    pointed at the receiver; prints every change."""
    rules, alertmanager = text
    if fast:
        rules, changed, _ = ap.rewrite_rules(rules, MISMATCH, {"for": FAST_FOR})
        if changed != 1:
            raise ap.Failure("alerts/skeleton-coherence.rules.yml changed shape: %d `for:` "
                             "of %s rewritten, want 1" % (changed, MISMATCH))
        ap.log("--fast: %s for: 1m -> %s; Alertmanager group_wait and group_interval -> 1s, "
               "repeat_interval -> 1h (temporary copies; nothing else changed)"
               % (MISMATCH, FAST_FOR))
        alertmanager = ap.rewrite_alertmanager(alertmanager, webhook_port)
    else:
        alertmanager, urls = re.subn(r"http://127\.0\.0\.1:9095/",
                                     "http://127.0.0.1:%d/" % webhook_port, alertmanager)
        if urls < 2:
            raise ap.Failure("alerts/alertmanager.yml has no webhook on 127.0.0.1:9095")
        ap.log("--no-fast: the shipped windows (for: 1m, group_wait 30s, group_interval 5m)")
    return rules, alertmanager


def write_configs(tmp, found, fast, ports):
    with open(os.path.join(SOURCE_DIR, "alerts", "skeleton-coherence.rules.yml"),
              encoding="utf-8") as f:
        rules = f.read()
    with open(os.path.join(SOURCE_DIR, "alerts", "alertmanager.yml"), encoding="utf-8") as f:
        alertmanager = f.read()
    rules, alertmanager = shorten((rules, alertmanager), fast, ports["webhook"])
    paths = {"rules": os.path.join(tmp, "skeleton-coherence.rules.yml"),
             "alertmanager": os.path.join(tmp, "alertmanager.yml"),
             "prometheus": os.path.join(tmp, "prometheus.yml")}
    with open(paths["rules"], "w", encoding="utf-8") as f:
        f.write(rules)
    check = subprocess.run([found["promtool"], "check", "rules", paths["rules"]],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if check.returncode != 0:
        raise ap.Failure("promtool check rules on the copy: %s" % check.stdout.decode())
    ap.log("promtool check rules: the rules as run pass")
    with open(paths["alertmanager"], "w", encoding="utf-8") as f:
        f.write(alertmanager)
    shutil.copy(os.path.join(SOURCE_DIR, "alerts", "skeleton-coherence.tmpl"), tmp)
    with open(paths["prometheus"], "w", encoding="utf-8") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "rule_files:\n  - %s\n"
                "alerting:\n  alertmanagers:\n    - static_configs:\n"
                "        - targets: ['127.0.0.1:%d']\n"
                "scrape_configs:\n  - job_name: skeleton-coherence\n"
                "    static_configs:\n      - targets: ['127.0.0.1:%d']\n"
                % (ap.yaml_string(paths["rules"]), ports["alertmanager"], ports["exporter"]))
    return paths


def start(found, tmp, processes, paths, ports, config):
    url = "http://127.0.0.1:%d" % ports["exporter"]
    processes.start("exporter", [found["exporter"], "--config.file=%s" % config,
                                 "--web.listen-address=127.0.0.1:%d" % ports["exporter"],
                                 "--scan.interval=1s"])
    ap.wait_ready("exporter", url + "/-/ready", processes)
    processes.start("alertmanager", [
        found["prometheus-alertmanager"], "--config.file=%s" % paths["alertmanager"],
        "--storage.path=%s" % os.path.join(tmp, "alertmanager-data"),
        "--web.listen-address=127.0.0.1:%d" % ports["alertmanager"],
        "--cluster.listen-address="])
    ap.wait_ready("alertmanager", "http://127.0.0.1:%d/-/ready" % ports["alertmanager"],
                  processes)
    processes.start("prometheus", [
        found["prometheus"], "--config.file=%s" % paths["prometheus"],
        "--storage.tsdb.path=%s" % os.path.join(tmp, "prometheus-data"),
        "--web.listen-address=127.0.0.1:%d" % ports["prometheus"]])
    ap.wait_ready("prometheus", "http://127.0.0.1:%d/-/ready" % ports["prometheus"],
                  processes)


def notification_for(webhook, status, since):
    for n, alert in [(n, a) for n in webhook.notifications()
                     for a in n["payload"].get("alerts", [])]:
        labels = alert.get("labels", {})
        if (n["at"] >= since and alert.get("status") == status
                and labels.get("alertname") == MISMATCH and labels.get("brain") == "m1nd"):
            return n, alert
    return None


def found_slug(description):
    match = re.search(r"found ([a-z0-9_]+)\)", description)
    return match.group(1) if match else "?"


def print_notification(notification, alert, took, since):
    payload = notification["payload"]
    labels, annotations = alert["labels"], alert.get("annotations", {})
    print("\n=== %s notification, %.1fs after the %s, POST %s (receiver %s) ==="
          % (payload.get("status", "?").upper(), took, since, notification["path"],
             payload.get("receiver")))
    print("  alertname:     %s (severity %s)" % (labels.get("alertname"), labels.get("severity")))
    print("  brain:         %s" % labels.get("brain"))
    print("  expected_slug: %s" % labels.get("expected_slug"))
    print("  found_slug:    %s" % found_slug(annotations.get("description", "")))
    print("  summary:       %s" % annotations.get("summary"))
    print("  description:   %s" % annotations.get("description"))
    print("  runbook_url:   %s" % annotations.get("runbook_url"), flush=True)


def check_runbook(url, exporter_address):
    """GETs the runbook link. A link to this exporter must answer 200 (else Failure);
    any other link is only reported."""
    parsed = urllib.parse.urlsplit(url or "")
    own = parsed.netloc == exporter_address
    status, _ = ap.http_get(url.split("#")[0], timeout=3) if parsed.scheme else (0, b"")
    if status == 200:
        print("  runbook link answers 200%s" % (" (this exporter's /runbook)" if own else ""))
        return
    what = "no answer" if status == 0 else "HTTP %d" % status
    if own:
        raise ap.Failure("the runbook link %s is this exporter's but does not answer 200 (%s)"
                         % (url, what))
    print("  runbook link does NOT answer 200 (%s): it is not a live exporter's /runbook "
          "(a placeholder)" % what, flush=True)


def run(args, found, tmp, processes):
    examples = os.path.join(tmp, "examples")
    shutil.copytree(os.path.join(SOURCE_DIR, "examples"), examples, symlinks=True)
    runtime_dir = os.path.join(examples, "m1nd-runtime")
    ap.write_store_atomically(runtime_dir, store("m1nd", 1))
    ap.log("copied examples/ to %s; brain m1nd starts healthy (sk_m1nd_candidate)" % examples)
    ports = dict(zip(("exporter", "alertmanager", "prometheus", "webhook"), ap.free_ports(4)))
    paths = write_configs(tmp, found, args.fast, ports)
    webhook = ap.Webhook(ports["webhook"])
    webhook.start()
    try:
        start(found, tmp, processes, paths, ports, os.path.join(examples, "config.yml"))
        ap.wait_until("Prometheus to scrape the exporter", lambda: ap.prometheus_api(
            "http://127.0.0.1:%d" % ports["prometheus"], "/api/v1/query",
            {"query": 'skeleton_coherence{brain="m1nd"} == 1'}).get("data", {}).get("result"),
            ap.START_TIMEOUT, processes)
        ap.write_store_atomically(runtime_dir, store("keyvault", 2))
        written = time.monotonic()
        ap.log("the incident: wrote %s/system_blocks.json (via .tmp + rename): brain m1nd now "
               "serves sk_keyvault_candidate" % runtime_dir)
        n, alert = ap.wait_until("the page", lambda: notification_for(webhook, "firing", written),
                                 PAGE_TIMEOUT, processes)
        print_notification(n, alert, n["at"] - written, "incident")
        check_runbook(alert.get("annotations", {}).get("runbook_url", ""),
                      "127.0.0.1:%d" % ports["exporter"])
        ap.write_store_atomically(runtime_dir, store("m1nd", 3))
        fixed = time.monotonic()
        ap.log("the fix: m1nd's store serves sk_m1nd_candidate again")
        n, alert = ap.wait_until("the resolved notification",
                                 lambda: notification_for(webhook, "resolved", fixed),
                                 RESOLVE_TIMEOUT, processes)
        print_notification(n, alert, n["at"] - fixed, "fix")
    finally:
        webhook.stop()


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fast", action=argparse.BooleanOptionalAction, default=True,
                        help="shorten the shipped time windows (default: on; see below)")
    parser.add_argument("--exporter", help="the exporter binary (default: build-example/bin, "
                        "build/bin, then PATH)")
    parser.add_argument("--prometheus", help="default: prometheus on PATH")
    parser.add_argument("--alertmanager", help="default: prometheus-alertmanager on PATH")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    found = tools(args)
    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="scx-demo-page-")
    processes = ap.Processes(tmp)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
    status = 1
    try:
        run(args, found, tmp, processes)
        status = 0
    except ap.Failure as error:
        print("demo-page: FAIL: %s" % error, flush=True)
        processes.dump_logs(20)
    except KeyboardInterrupt:
        print("demo-page: interrupted", flush=True)
        status = 130
    finally:
        processes.stop_all()
        left = [(name, p.pid) for name, p, _ in processes.started if p.poll() is None]
        ap.log("stopped %s; still running: %s" % (
            ", ".join("%s (pid %d)" % (name, p.pid) for name, p, _ in processes.started),
            left or "none"))
        if args.keep:
            ap.log("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    outcome = "done" if status == 0 else "FAILED"
    print("demo-page: %s in %.1fs" % (outcome, time.monotonic() - started), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
