#!/usr/bin/env python3
"""End to end: store write -> exporter -> Prometheus -> Alertmanager -> pager webhook.

Replays the incident the exporter exists for, and what an on-call engineer lives
through around it, with the real exporter, a real Prometheus loading
alerts/*.rules.yml, a real Alertmanager loading alerts/alertmanager.yml and a webhook
receiver of its own standing in for the pager. Two exporters in one scrape job:

  A "examples": a temporary COPY of examples/ (the m1nd layout of the README), run with
    its own config.yml. Its brains: m1nd (the registry owner), keyvault and my_repo
    (project brains, healthy) and notes (no store). The copy starts healthy: m1nd's
    store is replaced by an sk_m1nd_candidate one before the exporter starts.
  B "fleet": a temporary config of FLEET_SIZE static brains f01..f20, healthy, whose
    runtime dirs sit behind one symbolic link, so that all of them can turn foreign in
    one atomic rename.

  1. Healthy: nothing is sent for a few seconds; "notes" has no verdict. Prometheus
     scrapes both exporters in OpenMetrics (`up` is 1, and the metadata it keeps has
     OpenMetrics' family names, types and units: an info family, a counter without
     _total).
  2. Incident: m1nd's store (in the copy) is atomically replaced by one serving
     sk_keyvault_candidate, its mtime set 3d 4h back. The pager must get
     SkeletonCoherenceMismatch (severity critical) for brain=m1nd, expected_slug=m1nd,
     naming found slug keyvault in its summary and description, and "for at least
     3d 4h" when the exporter exports skeleton_coherence_mismatch_since_seconds. The
     write-to-page time is printed next to the sum of the configured intervals (scan,
     scrape, evaluation, `for`, group_wait) and must not beat the part that cannot
     overlap (`for` + group_wait).
  3. Every PromQL expression of the dashboard and the rules (dashboard_queries.py) runs
     against Prometheus: dashboard queries must return data, alert expressions must
     return exactly what this scenario implies (only the mismatch has a series).
  4. Restart: exporter A is stopped for RESTART_STOP_SECONDS and started again. The
     alert must stay firing in Prometheus with the same activeAt all along (its
     description saying the exporter is not scraped), and the pager must get no
     resolved notification and no new page for m1nd.
  5. Storm: the FLEET_SIZE brains of exporter B turn foreign at once (the link is
     renamed right after a scan of B, so that one scan reads all of them the same
     way; the fix below does the same). The pager must get
     exactly ONE notification for them, listing all of them, and without m1nd (which
     fires on exporter A: another instance, another group).
  6. Outage: both exporters are stopped for OUTAGE_SECONDS, longer than the mismatch
     rule's window, while m1nd and the fleet fire, then started again. The pager must
     get ONE SkeletonCoherenceExporterDown notification naming both exporters (grouped
     across instances), and for the 21 unfixed mismatches neither a resolved
     notification nor a new page (alerts/alertmanager.yml's inhibit rules and the down
     alert's keep_firing_for).
  7. Fix: m1nd's store is replaced by an sk_m1nd_candidate one again and the fleet's
     link is turned back. The pager must get m1nd's resolved notification within
     FIX_RESOLVE_BOUND seconds, and the fleet's 20 resolutions in one notification.
  8. Flap: m1nd's store alternates between keyvault's and its own skeleton every
     FLAP_SECONDS (shorter than the mismatch `for:`), FLAP_TURNS times. The pager must
     get ONE SkeletonCoherenceMismatchFlapping (the incident and its fix were the first
     entry into mismatch), and from then on no SkeletonCoherenceMismatch for m1nd.
  No alert may ever name any other brain of the copy (keyvault, my_repo, notes).
  The counts and times are printed.

To run in seconds, it starts from temporary copies of the checked-in configs with:
  - SkeletonCoherenceMismatch `for:` shortened to FOR_SECONDS (1m in the rule file)
    and its 20m windows to WINDOW_SECONDS; SkeletonCoherenceExporterDown's `for:` and
    keep_firing_for (5m each) to DOWN_FOR_SECONDS and KEEP_FIRING_SECONDS,
  - Alertmanager group_wait/group_interval 1s and repeat_interval 1h, webhook URLs
    pointed at the in-test receiver,
  - scans, scrapes and rule evaluations every second.
Everything else (expressions, labels, annotations, routes, grouping, receivers) is as
checked in.

Usage (normally through CTest: `ctest -R e2e_alerting`):
  e2e_alerting.py --exporter build/bin/skeleton-coherence-exporter --source-dir .

Exit status: 0 pass, 1 fail, 77 skipped (prometheus or alertmanager not installed).
Python 3 standard library only.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts"))
import alert_pipeline  # noqa: E402  (scripts/alert_pipeline.py, shared with the demo)
from alert_pipeline import (  # noqa: E402,F401  (e2e_continuity.py uses them from here)
    Failure, Processes, Webhook, find_tool, free_ports, http_get, prometheus_api,
    rewrite_rules, wait_ready, wait_until, write_store_atomically, yaml_string)
import dashboard_queries  # noqa: E402  (sibling module)
from missing_tool import missing_tool  # noqa: E402  (tests/missing_tool.py)

# The timings of the pipeline under test.
SCAN_SECONDS = 1
SCRAPE_SECONDS = 1
EVAL_SECONDS = 1
FOR_SECONDS = 2
# The mismatch rule's 20m windows, and SkeletonCoherenceExporterDown's 5m `for:` and
# 5m keep_firing_for, scaled down in the same order: restart < down `for` < window <
# outage.
WINDOW_SECONDS = 30
DOWN_FOR_SECONDS = 20
KEEP_FIRING_SECONDS = 10
OUTAGE_SECONDS = WINDOW_SECONDS + 15
GROUP_WAIT_SECONDS = 1
GROUP_INTERVAL_SECONDS = 1

JOB = "skeleton-coherence"
MISMATCH = "SkeletonCoherenceMismatch"
DOWN = "SkeletonCoherenceExporterDown"
FLAPPING = "SkeletonCoherenceMismatchFlapping"
# The flap: m1nd's store alternates between keyvault's and its own skeleton every
# FLAP_SECONDS, shorter than the mismatch `for:`, FLAP_TURNS times.
FLAP_SECONDS = 0.6
FLAP_TURNS = 24
ADVICE = ("this brain is serving a foreign skeleton; rebind or re-ingest before trusting "
          "block scope")
# The duration part is there when the exporter exports
# skeleton_coherence_mismatch_since_seconds.
INCIDENT_DESCRIPTION_RE = re.compile(
    r"brain m1nd serves skeleton of keyvault \(expected slug m1nd, found keyvault\)"
    r"(?P<duration>, for at least [0-9dhms ]+)?: " + re.escape(ADVICE) + r"\."
    r"(?P<owner> m1nd serves keyvault's skeleton \(brain keyvault on this exporter\)\.)?"
    r"(?P<where> Where: runtime dir (?P<runtime_dir>\S+), project root (?P<project_root>\S+),"
    r" found through \S+ \(m1nd's name for it: [^)]*\)\.)?")
NOT_SCRAPED_NOTE = "The exporter is not scraped now: this is the last verdict it served."
# The incident store's mtime lies this far back: "for at least 3d 4h ...".
INCIDENT_AGE_SECONDS = 3 * 86400 + 4 * 3600 + 30
INCIDENT_AGE_TEXT = ", for at least 3d 4h "
# Brain names examples/ must export (README, docs/runbook.md).
EXAMPLE_BRAINS = ("m1nd", "keyvault", "my_repo", "notes")
FLEET_SIZE = 20
RESTART_STOP_SECONDS = 10

# Bounds on every wait (seconds). The whole test stays well under CTest's timeout.
START_TIMEOUT = 20
FIRST_DATA_TIMEOUT = 20
HEALTHY_WINDOW = 5
PAGE_TIMEOUT = 60
RESOLVE_TIMEOUT = 30
# Prometheus and Alertmanager latency on top of DOWN_FOR_SECONDS for the down page.
DOWN_PAGE_TIMEOUT = DOWN_FOR_SECONDS + 30
# After the first notification of a group, how long to watch for more of them.
SETTLE_SECONDS = 3
# A fix must resolve within this (scan + scrape + evaluation + group_interval = 4 s,
# plus room for a loaded machine); a page that holds the fix for its 20m window fails.
FIX_RESOLVE_BOUND = 15
HTTP_TIMEOUT = 5
STOP_GRACE = 5


# The name log lines start with; a test importing this module's helpers sets its own.
LOG_NAME = "e2e_alerting"


def log(message):
    print("%s: %s" % (LOG_NAME, message), flush=True)


alert_pipeline.LOG_NAME = LOG_NAME


# --- the m1nd layout -------------------------------------------------------------


def store_document(slug, store_version, blocks):
    """A system_blocks.json as m1nd writes it: skeleton and blocks minted for `slug`."""
    return {
        "schema": "m1nd-system-block-store-v0",
        "store_version": store_version,
        "skeleton": {"skeleton_id": "sk_%s_candidate" % slug, "version": 1,
                     "state": "candidate"},
        "blocks": [{"block_id": "sb_%s_%s_%s" % (slug, name.lower(), suffix), "name": name}
                   for name, suffix in blocks],
        "unmapped_policy": {"visible": True,
                            "default_action": "leave_unmapped_until_ratified"},
    }


M1ND_BLOCKS = [("Core", "1a2b3c4d"), ("Engine", "5e6f7a8b")]
KEYVAULT_BLOCKS = [("Vault", "9c0d1e2f"), ("Crypto", "3a4b5c6d")]


def replace_symlink_atomically(link, target):
    """Points `link` at `target` in one rename: readers see the old or the new target."""
    temporary = link + ".new"
    os.symlink(target, temporary)
    os.replace(temporary, link)


# --- processes and ports ---------------------------------------------------------


def check_runbook_links(pages, exporters):
    """Follows the runbook_url of every alert the pager received, as Alertmanager sent
    it: a live exporter's /runbook (the exporters are up again by now, so the link an
    ExporterDown page took from the last exporter seen answers too), 200, holding the
    alert's section. Returns {alertname: links}."""
    links = {}
    for alert in pages:
        name = alert["labels"].get("alertname", "")
        url = alert.get("annotations", {}).get("runbook_url", "")
        parsed = urllib.parse.urlsplit(url)
        if (parsed.scheme != "http" or parsed.netloc not in exporters
                or parsed.path != "/runbook" or parsed.fragment != name.lower()):
            raise Failure("%s's runbook_url %r is not /runbook#%s on an exporter of %s"
                          % (name, url, name.lower(), exporters))
        links.setdefault(name, set()).add(url)
    for name, urls in sorted(links.items()):
        for url in sorted(urls):
            status, body = http_get(url.split("#")[0])
            anchor = 'id="%s"' % name.lower()
            if status != 200 or anchor.encode() not in body:
                raise Failure("%s's runbook link %s: status %d, %s section: %s"
                              % (name, url, status, "with" if anchor.encode() in body
                                 else "no", body[:200]))
            log("runbook link of %s answers with its section: %s" % (name, url))
    return {name: sorted(urls) for name, urls in links.items()}


# --- the pager: a webhook receiver -----------------------------------------------


def is_incident(alert, instance):
    labels = alert.get("labels", {})
    return (labels.get("alertname") == MISMATCH and labels.get("brain") == "m1nd"
            and labels.get("expected_slug") == "m1nd" and labels.get("instance") == instance)


def find_mismatch_alert(webhook, status, since, instance):
    """The first (notification, alert) for m1nd's mismatch with `status` since `since`."""
    for notification, alert in webhook.alerts():
        if (notification["at"] >= since and alert.get("status") == status
                and is_incident(alert, instance)):
            return notification, alert
    return None


def fleet_notifications(webhook, status, since, instance):
    """Notifications since `since` holding a mismatch alert of exporter B with `status`,
    each as (notification, sorted brains with that status)."""
    found = []
    for notification in webhook.notifications():
        if notification["at"] < since:
            continue
        brains = sorted(a["labels"].get("brain") for a in notification["payload"].get("alerts", [])
                        if a.get("status") == status
                        and a["labels"].get("alertname") == MISMATCH
                        and a["labels"].get("instance") == instance)
        if brains:
            found.append((notification, brains))
    return found


def check_no_quiet_brain_alerts(webhook, prometheus_url, quiet_brains):
    for notification, alert in webhook.alerts():
        brain = alert.get("labels", {}).get("brain")
        if brain in quiet_brains:
            raise Failure("an alert names brain %s: %s" % (brain, json.dumps(alert)))
    for alert in prometheus_alerts(prometheus_url):
        brain = alert.get("labels", {}).get("brain")
        if brain in quiet_brains:
            raise Failure("Prometheus has a %s alert for brain %s: %s"
                          % (alert.get("state"), brain, json.dumps(alert)))


# --- Prometheus API --------------------------------------------------------------


def query(prometheus_url, expr):
    """The result list of an instant query; raises Failure when it does not run."""
    answer = prometheus_api(prometheus_url, "/api/v1/query", {"query": expr})
    if answer.get("status") != "success":
        raise Failure("query failed (%s: %s): %s"
                      % (answer.get("errorType"), answer.get("error"), expr))
    return answer["data"]["result"]


def check_openmetrics_scrape(prometheus_url, instances):
    """Prometheus scraped each exporter, in OpenMetrics: `up` is 1 and the metadata it
    keeps for the target carries what only OpenMetrics says (an info family named
    without _info, a counter without _total, a unit)."""
    for instance in instances:
        up = query(prometheus_url, 'up{instance="%s"}' % instance)
        if [sample["value"][1] for sample in up] != ["1"]:
            raise Failure("up{instance=%s} is %s, want 1" % (instance, up))
        answer = prometheus_api(  # GET: the metadata API takes no POST
            prometheus_url, "/api/v1/targets/metadata?" + urllib.parse.urlencode(
                {"match_target": '{instance="%s"}' % instance}))
        if answer.get("status") != "success":
            raise Failure("target metadata of %s: %s" % (instance, answer.get("error")))
        metadata = {entry["metric"]: entry for entry in answer["data"]}
        want = {"skeleton_coherence_brain": ("info", ""),
                "skeleton_coherence_exporter_scans": ("counter", ""),
                "skeleton_coherence_exporter_scan_seconds": ("histogram", "seconds"),
                "process_cpu_seconds": ("counter", "seconds")}
        for metric, (kind, unit) in want.items():
            entry = metadata.get(metric)
            if entry is None or (entry.get("type"), entry.get("unit", "")) != (kind, unit):
                raise Failure("%s: metadata of %s is %s, want type %s unit %r: not scraped "
                              "in OpenMetrics" % (instance, metric, entry, kind, unit))


def prometheus_alerts(prometheus_url):
    answer = prometheus_api(prometheus_url, "/api/v1/alerts")
    if answer.get("status") != "success":
        raise Failure("GET /api/v1/alerts failed: %s" % answer.get("error"))
    return answer["data"]["alerts"]


def check_rule_health(prometheus_url):
    """Every loaded rule has been evaluated, and without error."""
    answer = prometheus_api(prometheus_url, "/api/v1/rules")
    rules = [rule for group in answer.get("data", {}).get("groups", [])
             for rule in group["rules"]]
    bad = ["%s: health %s %s" % (r["name"], r.get("health"), r.get("lastError", ""))
           for r in rules if r.get("health") != "ok"]
    if not rules or bad:
        raise Failure("rules not evaluated cleanly: %s" % (bad or "no rules loaded"))


def metric_labels(result):
    return [sample["metric"] for sample in result]


# --- temporary configs -----------------------------------------------------------


# --- the test --------------------------------------------------------------------


def static_checks(source_dir):
    """Checks needing no server: every expression reads, the dashboards are well formed,
    and every exporter metric they use is in the contract (docs/metrics.md)."""
    queries = dashboard_queries.all_queries(source_dir)
    problems = []
    for path in dashboard_queries.dashboard_files(source_dir):
        problems += ["%s: %s" % (os.path.relpath(path, source_dir), problem)
                     for problem in dashboard_queries.lint_dashboard(path)]
    with open(os.path.join(source_dir, "docs", "metrics.md"), encoding="utf-8") as f:
        contract = f.read()
    used_metrics = sorted({name for q in queries
                           for name in dashboard_queries.metric_names(q.expr)})
    undocumented = [name for name in used_metrics if "`%s`" % name not in contract]
    if undocumented:
        problems.append("metrics used by the dashboard/rules but not in docs/metrics.md: %s"
                        % ", ".join(undocumented))
    if problems:
        raise Failure("static checks:\n  " + "\n  ".join(problems))
    return queries, used_metrics


def run_once(exporter, config):
    """`--once` over `config`: (exit status, {brain name: brain object})."""
    once = subprocess.run([exporter, "--config.file=%s" % config, "--once"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    try:
        document = json.loads(once.stdout)
        return once.returncode, {b["brain"]: b for b in document["brains"]}
    except (ValueError, KeyError, TypeError):
        raise Failure("--once over %s (status %d) did not print the brains: %r %r"
                      % (config, once.returncode, once.stdout[:500], once.stderr[-500:]))


def copy_examples(source_dir, tmp, exporter):
    """A temporary copy of examples/, started healthy: m1nd's store in the copy is
    replaced by an sk_m1nd_candidate one. Returns (config path, brains from --once)."""
    examples = os.path.join(tmp, "examples")
    shutil.copytree(os.path.join(source_dir, "examples"), examples, symlinks=True)
    config = os.path.join(examples, "config.yml")
    _, brains = run_once(exporter, config)
    missing = [name for name in EXAMPLE_BRAINS if name not in brains]
    if missing:
        raise Failure("--once over the copy of examples/ lacks brains %s: has %s"
                      % (missing, sorted(brains)))
    runtime_dir = brains["m1nd"]["runtime_dir"]
    if not os.path.realpath(runtime_dir).startswith(os.path.realpath(examples) + os.sep):
        raise Failure("brain m1nd's runtime dir %s is outside the copy %s: examples/ must "
                      "use paths relative to itself" % (runtime_dir, examples))
    write_store_atomically(runtime_dir, store_document("m1nd", 1, M1ND_BLOCKS))
    _, brains = run_once(exporter, config)
    verdict = brains["m1nd"].get("skeleton_coherence") or {}
    if verdict.get("status") != "ok":
        raise Failure("brain m1nd of the copy is not healthy after the rewrite: %s"
                      % json.dumps(brains["m1nd"]))
    not_ok = {name: b.get("skeleton_coherence") for name, b in brains.items()
              if (b.get("skeleton_coherence") or {"status": "ok"}).get("status") != "ok"}
    if not_ok or brains["notes"].get("store") != "absent":
        raise Failure("the copy of examples/ does not start healthy (want every verdict ok "
                      "and notes without a store): %s" % json.dumps(not_ok or brains["notes"]))
    return config, brains


def fleet_slug(index):
    return "f%02d" % index


def make_fleet(tmp):
    """FLEET_SIZE static brains whose runtime dirs are fleet/current/<slug>, with
    `current` a symbolic link to fleet/healthy or fleet/foreign. Returns (config, link,
    healthy dir, foreign dir)."""
    fleet = os.path.join(tmp, "fleet")
    healthy, foreign = os.path.join(fleet, "healthy"), os.path.join(fleet, "foreign")
    link = os.path.join(fleet, "current")
    config = os.path.join(tmp, "fleet.yml")
    with open(config, "w", encoding="utf-8") as f:
        f.write("m1nd_registries: []\nbrains:\n")
        for index in range(1, FLEET_SIZE + 1):
            slug = fleet_slug(index)
            for folder, document in (
                    (healthy, store_document(slug, 1, [("Core", "0a0b0c0d")])),
                    (foreign, store_document("keyvault", 2, KEYVAULT_BLOCKS))):
                os.makedirs(os.path.join(folder, slug))
                write_store_atomically(os.path.join(folder, slug), document)
            f.write("  - name: %s\n    project_root: %s\n    runtime_dir: %s\n"
                    % (yaml_string(slug), yaml_string(os.path.join(fleet, "projects", slug)),
                       yaml_string(os.path.join(link, slug))))
    os.symlink(healthy, link)
    return config, link, healthy, foreign


def run(args, tmp, processes):
    source_dir = os.path.abspath(args.source_dir)
    rule_paths = dashboard_queries.rule_files(source_dir)
    alertmanager_yml = os.path.join(source_dir, "alerts", "alertmanager.yml")
    queries, used_metrics = static_checks(source_dir)

    examples_config, examples_brains = copy_examples(source_dir, tmp, args.exporter)
    fleet_config, fleet_link, fleet_healthy, fleet_foreign = make_fleet(tmp)

    ports = free_ports(5)
    examples_port, fleet_port, webhook_port, alertmanager_port, prometheus_port = ports
    env = types.SimpleNamespace(
        queries=queries, used_metrics=used_metrics, rule_paths=rule_paths,
        alertmanager_yml=alertmanager_yml,
        examples_config=examples_config, examples_brains=examples_brains,
        m1nd_runtime_dir=examples_brains["m1nd"]["runtime_dir"],
        quiet_brains=sorted(name for name in examples_brains if name != "m1nd"),
        fleet_config=fleet_config, fleet_link=fleet_link, fleet_healthy=fleet_healthy,
        fleet_foreign=fleet_foreign,
        examples_port=examples_port, fleet_port=fleet_port, webhook_port=webhook_port,
        alertmanager_port=alertmanager_port, prometheus_port=prometheus_port,
        examples_instance="127.0.0.1:%d" % examples_port,
        fleet_instance="127.0.0.1:%d" % fleet_port,
        examples_url="http://127.0.0.1:%d" % examples_port,
        fleet_url="http://127.0.0.1:%d" % fleet_port,
        alertmanager_url="http://127.0.0.1:%d" % alertmanager_port,
        prometheus_url="http://127.0.0.1:%d" % prometheus_port)
    webhook = Webhook(webhook_port)
    webhook.start()
    try:
        return run_with_webhook(args, tmp, processes, webhook, env)
    finally:
        webhook.stop()


def start_exporter(args, processes, env, name, config, port, flags=(), prefix=()):
    """Starts an exporter and waits until it is ready. `flags` are more flags for it,
    `prefix` a command (with its arguments) that runs it, e.g. in a namespace."""
    processes.start(name, list(prefix) + [
        args.exporter,
        "--web.listen-address=127.0.0.1:%d" % port,
        "--config.file=%s" % config,
        "--scan.interval=%ds" % SCAN_SECONDS,
        "--log.level=debug",
    ] + list(flags))
    wait_ready(name, "http://127.0.0.1:%d/-/ready" % port, processes)


def start_alertmanager(args, tmp, processes, env):
    with open(env.alertmanager_yml, encoding="utf-8") as f:
        am_text = alert_pipeline.rewrite_alertmanager(
            f.read(), env.webhook_port, GROUP_WAIT_SECONDS, GROUP_INTERVAL_SECONDS)
    am_config = os.path.join(tmp, "alertmanager.yml")
    with open(am_config, "w", encoding="utf-8") as f:
        f.write(am_text)
    am_data = os.path.join(tmp, "alertmanager-data")
    os.makedirs(am_data)
    processes.start("alertmanager", [
        args.alertmanager,
        "--config.file=%s" % am_config,
        "--storage.path=%s" % am_data,
        "--web.listen-address=127.0.0.1:%d" % env.alertmanager_port,
        "--cluster.listen-address=",
    ])
    wait_ready("alertmanager", env.alertmanager_url + "/-/ready", processes)


def start_prometheus(args, tmp, processes, env, targets=None, window_seconds=WINDOW_SECONDS):
    """Prometheus with copies of alerts/*.rules.yml, scraping `targets` (default both
    exporters), the mismatch rule's windows shortened to `window_seconds`."""
    if targets is None:
        targets = [env.examples_instance, env.fleet_instance]
    rules_dir = os.path.join(tmp, "rules")
    os.makedirs(rules_dir)
    copied_rules = []
    changes = {MISMATCH: [0, 0], DOWN: [0, 0]}
    for path in env.rule_paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text, changed, windows = rewrite_rules(text, MISMATCH, {"for": "%ds" % FOR_SECONDS},
                                               window="%ds" % window_seconds)
        changes[MISMATCH][0] += changed
        changes[MISMATCH][1] += windows
        text, changed, _ = rewrite_rules(text, DOWN, {
            "for": "%ds" % DOWN_FOR_SECONDS, "keep_firing_for": "%ds" % KEEP_FIRING_SECONDS})
        changes[DOWN][0] += changed
        copy = os.path.join(rules_dir, os.path.basename(path))
        with open(copy, "w", encoding="utf-8") as f:
            f.write(text)
        copied_rules.append(copy)
    if changes[MISMATCH][0] != 1 or changes[MISMATCH][1] < 2 or changes[DOWN][0] != 2:
        raise Failure("alerts/*.rules.yml changed shape: rewrote %d `for:` and %d [20m] "
                      "windows of %s (want 1 and at least 2), %d fields of %s (want `for:` "
                      "and `keep_firing_for:`)" % (changes[MISMATCH][0], changes[MISMATCH][1],
                                                   MISMATCH, changes[DOWN][0], DOWN))
    log("rule copies for this test: %s `for:` %ds and windows %ds (1m and 20m in alerts/), "
        "%s `for:` %ds and keep_firing_for %ds (5m and 5m)"
        % (MISMATCH, FOR_SECONDS, window_seconds, DOWN, DOWN_FOR_SECONDS, KEEP_FIRING_SECONDS))
    prometheus_config = os.path.join(tmp, "prometheus.yml")
    with open(prometheus_config, "w", encoding="utf-8") as f:
        f.write("global:\n"
                "  scrape_interval: %ds\n"
                "  scrape_timeout: %ds\n"
                "  evaluation_interval: %ds\n"
                "rule_files:\n%s"
                "alerting:\n"
                "  alertmanagers:\n"
                "    - static_configs:\n"
                "        - targets: ['127.0.0.1:%d']\n"
                "scrape_configs:\n"
                "  - job_name: %s\n"
                "    static_configs:\n"
                "      - targets: [%s]\n"
                % (SCRAPE_SECONDS, SCRAPE_SECONDS, EVAL_SECONDS,
                   "".join("  - %s\n" % yaml_string(p) for p in copied_rules),
                   env.alertmanager_port, JOB, ", ".join("'%s'" % t for t in targets)))
    processes.start("prometheus", [
        args.prometheus,
        "--config.file=%s" % prometheus_config,
        "--storage.tsdb.path=%s" % os.path.join(tmp, "prometheus-data"),
        "--web.listen-address=127.0.0.1:%d" % env.prometheus_port,
    ])
    wait_ready("prometheus", env.prometheus_url + "/-/ready", processes)

    # Prometheus loaded every alert of the rule files.
    rule_alerts = sorted(q.name for q in env.queries if q.kind == "alert")
    answer = prometheus_api(env.prometheus_url, "/api/v1/rules")
    loaded = sorted(rule["name"] for group in answer.get("data", {}).get("groups", [])
                    for rule in group["rules"] if rule["type"] == "alerting")
    if loaded != rule_alerts:
        raise Failure("Prometheus loaded alerts %s, dashboard_queries.py read %s"
                      % (loaded, rule_alerts))


def verdicts(prometheus_url, instance):
    """{(brain, expected_slug, found_slug): value} of one exporter, as scraped."""
    result = query(prometheus_url, 'skeleton_coherence{job="%s",instance="%s"}'
                   % (JOB, instance))
    return {(m.get("brain"), m.get("expected_slug"), m.get("found_slug")): s["value"][1]
            for m, s in zip(metric_labels(result), result)}


_SCANS_RE = re.compile(r"^skeleton_coherence_exporter_scans_total(?:\{[^}]*\})? (\S+)$", re.M)


def scans_completed(exporter_url):
    status, body = http_get(exporter_url + "/metrics")
    match = _SCANS_RE.search(body.decode("utf-8", "replace")) if status == 200 else None
    return match.group(1) if match else None


def just_after_a_scan(exporter_url, processes):
    """Returns right after the exporter completes a scan: a change made now is read by
    the next scan whole, not half by one scan and half by the next."""
    before = scans_completed(exporter_url)
    if before is None:
        raise Failure("%s/metrics has no skeleton_coherence_exporter_scans_total"
                      % exporter_url)
    wait_until("a scan of %s to complete" % exporter_url,
               lambda: scans_completed(exporter_url) != before,
               START_TIMEOUT, processes, interval=0.01)


def prometheus_incident(prometheus_url, instance):
    """m1nd's mismatch alert as Prometheus has it (pending or firing), or None."""
    for alert in prometheus_alerts(prometheus_url):
        if is_incident(alert, instance):
            return alert
    return None


def run_with_webhook(args, tmp, processes, webhook, env):
    prometheus_url = env.prometheus_url
    examples, fleet = env.examples_instance, env.fleet_instance
    quiet = env.quiet_brains
    fleet_brains = [fleet_slug(i) for i in range(1, FLEET_SIZE + 1)]

    start_exporter(args, processes, env, "exporter-examples", env.examples_config,
                   env.examples_port)
    start_exporter(args, processes, env, "exporter-fleet", env.fleet_config, env.fleet_port)
    start_alertmanager(args, tmp, processes, env)
    start_prometheus(args, tmp, processes, env)

    # --- 1. healthy -------------------------------------------------------------
    want_examples = {(name, b["skeleton_coherence"]["expected_slug"],
                      b["skeleton_coherence"]["found_slug"]): "1"
                     for name, b in env.examples_brains.items() if b.get("skeleton_coherence")}
    want_fleet = {(slug, slug, slug): "1" for slug in fleet_brains}
    wait_until("Prometheus to scrape every healthy verdict of both exporters",
               lambda: (verdicts(prometheus_url, examples) == want_examples
                        and verdicts(prometheus_url, fleet) == want_fleet),
               FIRST_DATA_TIMEOUT, processes)
    notes_absent = query(prometheus_url,
                         'skeleton_coherence_brain_state{brain="notes",state="absent"} == 1')
    if len(notes_absent) != 1:
        raise Failure("brain notes (no store) is not in state absent: %s" % notes_absent)
    if query(prometheus_url, 'skeleton_coherence{brain="notes"}'):
        raise Failure("brain notes (no store) has a skeleton_coherence series")
    check_openmetrics_scrape(prometheus_url, [examples, fleet])
    # Let the rules evaluate the healthy data for a while (every EVAL_SECONDS): nothing
    # may be sent, and every rule must evaluate without error.
    healthy_until = time.monotonic() + HEALTHY_WINDOW
    while time.monotonic() < healthy_until:
        processes.check_alive()
        time.sleep(0.25)
    if webhook.notifications():
        raise Failure("notifications while every brain was healthy: %s"
                      % json.dumps([n["payload"] for n in webhook.notifications()]))
    pending = prometheus_alerts(prometheus_url)
    if pending:
        raise Failure("alerts pending or firing while healthy: %s" % json.dumps(pending))
    check_rule_health(prometheus_url)
    log("healthy for %ds: %d + %d brains, no alert, no notification; notes has no verdict"
        % (HEALTHY_WINDOW, len(env.examples_brains), FLEET_SIZE))

    # --- 2. the incident --------------------------------------------------------
    write_store_atomically(env.m1nd_runtime_dir,
                           store_document("keyvault", 2, KEYVAULT_BLOCKS),
                           mtime=time.time() - INCIDENT_AGE_SECONDS)
    written_at = time.monotonic()
    log("wrote the incident store (mtime 3d 4h ago): brain m1nd now serves "
        "sk_keyvault_candidate")

    found = wait_until("the pager to receive a firing %s for brain m1nd" % MISMATCH,
                       lambda: find_mismatch_alert(webhook, "firing", written_at, examples),
                       PAGE_TIMEOUT, processes)
    notification, alert = found
    write_to_page = notification["at"] - written_at
    intervals = SCAN_SECONDS + SCRAPE_SECONDS + EVAL_SECONDS + FOR_SECONDS + GROUP_WAIT_SECONDS
    floor = FOR_SECONDS + GROUP_WAIT_SECONDS
    print("write-to-page: %.2fs (sum of the configured intervals: scan %ds + scrape %ds + "
          "eval %ds + for %ds + group_wait %ds = %ds, the worst alignment of the stages; "
          "floor it cannot beat: for + group_wait = %ds)"
          % (write_to_page, SCAN_SECONDS, SCRAPE_SECONDS, EVAL_SECONDS, FOR_SECONDS,
             GROUP_WAIT_SECONDS, intervals, floor), flush=True)
    if write_to_page < floor:
        raise Failure("paged %.2fs after the write, faster than for + group_wait = %ds: "
                      "the rule's `for` was not honoured" % (write_to_page, floor))
    payload = notification["payload"]
    if notification["path"] != "/alerts" or payload.get("receiver") != "pager":
        raise Failure("the page went to receiver %r at %s, want pager at /alerts"
                      % (payload.get("receiver"), notification["path"]))
    labels, annotations = alert["labels"], alert.get("annotations", {})
    if labels.get("severity") != "critical":
        raise Failure("severity %r, want critical: %s" % (labels.get("severity"), labels))
    if "found_slug" in labels:
        raise Failure("found_slug is part of the alert's identity: %s" % labels)
    description = annotations.get("description", "")
    match = INCIDENT_DESCRIPTION_RE.fullmatch(description)
    if not match:
        raise Failure("description %r, want %r" % (description, INCIDENT_DESCRIPTION_RE.pattern))
    since_exported = bool(query(prometheus_url,
                                'skeleton_coherence_mismatch_since_seconds{brain="m1nd"}'))
    if since_exported and not (match.group("duration") or "").startswith(INCIDENT_AGE_TEXT):
        raise Failure("skeleton_coherence_mismatch_since_seconds is exported but the "
                      "description does not say %r: %r" % (INCIDENT_AGE_TEXT, description))
    # keyvault is a brain of examples/: the exporter knows whose skeleton m1nd serves.
    if not match.group("owner"):
        raise Failure("description does not say whose skeleton m1nd serves: %r" % description)
    if match.group("runtime_dir") != env.m1nd_runtime_dir:
        raise Failure("description does not name m1nd's runtime dir %s: %r"
                      % (env.m1nd_runtime_dir, description))
    # The shipped rules link the alert's own exporter's /runbook while it is scraped.
    if annotations.get("runbook_url") != "http://%s/runbook#skeletoncoherencemismatch" % examples:
        raise Failure("runbook_url %r, want the examples exporter's /runbook"
                      % annotations.get("runbook_url"))
    if not all(word in annotations.get("summary", "") for word in ("m1nd", "keyvault")):
        raise Failure("summary does not name both slugs: %r" % annotations.get("summary"))
    log("paged: %s" % description)
    if not since_exported:
        log("note: skeleton_coherence_mismatch_since_seconds is not exported: "
            "the description says no duration")
    check_no_quiet_brain_alerts(webhook, prometheus_url, quiet)

    # The runbook's confirmation steps show the same verdict.
    check_runbook_views(args.exporter, env.examples_config, env.examples_url)

    # --- 3. every dashboard and rule expression ---------------------------------
    checked = check_queries(prometheus_url, env.queries)
    log("%d dashboard and %d rule expressions run against Prometheus"
        % (checked["dashboard"], checked["rule"]))
    exported = check_exported_metrics(prometheus_url, env.used_metrics)
    check_no_quiet_brain_alerts(webhook, prometheus_url, quiet)

    # --- 4. exporter restart ----------------------------------------------------
    restart = check_restart(args, processes, webhook, env)

    # --- 5. twenty brains at once -----------------------------------------------
    just_after_a_scan(env.fleet_url, processes)
    replace_symlink_atomically(env.fleet_link, env.fleet_foreign)
    storm_at = time.monotonic()
    log("turned the %d fleet brains foreign in one rename" % FLEET_SIZE)
    wait_until("the pager to receive the fleet's mismatches",
               lambda: fleet_notifications(webhook, "firing", storm_at, fleet),
               PAGE_TIMEOUT, processes)
    time.sleep(SETTLE_SECONDS)
    storm = fleet_notifications(webhook, "firing", storm_at, fleet)
    storm_alerts = [len(n["payload"].get("alerts", [])) for n, _ in storm]
    print("storm: %d brains turned mismatch at once on one exporter -> %d notification(s) "
          "for them, listing %s brains (%.2fs after the rename)"
          % (FLEET_SIZE, len(storm), [len(brains) for _, brains in storm],
             storm[0][0]["at"] - storm_at), flush=True)
    if len(storm) != 1 or storm[0][1] != fleet_brains:
        raise Failure("want ONE notification listing all %d fleet brains, got %d: %s"
                      % (FLEET_SIZE, len(storm), [brains for _, brains in storm]))
    others = [a["labels"] for a in storm[0][0]["payload"].get("alerts", [])
              if a["labels"].get("instance") != fleet]
    if others or storm_alerts[0] != FLEET_SIZE:
        raise Failure("the fleet's notification also holds alerts of another exporter "
                      "(instances must not be merged): %s" % others)
    group = storm[0][0]["payload"].get("groupLabels", {})
    if group.get("instance") != fleet or group.get("alertname") != MISMATCH:
        raise Failure("the fleet's notification is grouped by %s, want alertname and "
                      "instance" % group)

    # --- 6. both exporters down for longer than the mismatch window -------------
    outage = check_outage(args, processes, webhook, env, fleet_brains)

    # --- 7. the fix -------------------------------------------------------------
    just_after_a_scan(env.fleet_url, processes)
    write_store_atomically(env.m1nd_runtime_dir, store_document("m1nd", 3, M1ND_BLOCKS))
    replace_symlink_atomically(env.fleet_link, env.fleet_healthy)
    fixed_at = time.monotonic()
    log("fixed: m1nd serves sk_m1nd_candidate again, the fleet's link points back")
    resolved, _ = wait_until("the pager to receive the resolved %s" % MISMATCH,
                             lambda: find_mismatch_alert(webhook, "resolved", fixed_at,
                                                         examples),
                             RESOLVE_TIMEOUT, processes)
    fix_to_resolve = resolved["at"] - fixed_at
    if resolved["path"] != "/alerts":
        raise Failure("the resolved notification went to %s, want /alerts" % resolved["path"])
    wait_until("the pager to receive the fleet's resolutions",
               lambda: fleet_notifications(webhook, "resolved", fixed_at, fleet),
               RESOLVE_TIMEOUT, processes)
    time.sleep(SETTLE_SECONDS)
    fleet_resolved = fleet_notifications(webhook, "resolved", fixed_at, fleet)
    fleet_fix_to_resolve = fleet_resolved[0][0]["at"] - fixed_at
    print("fix-to-resolve: m1nd %.2fs, the %d fleet brains %.2fs in %d notification(s) "
          "(bound %ds; scan %ds + scrape %ds + eval %ds + group_interval %ds = %ds)"
          % (fix_to_resolve, FLEET_SIZE, fleet_fix_to_resolve, len(fleet_resolved),
             FIX_RESOLVE_BOUND, SCAN_SECONDS, SCRAPE_SECONDS, EVAL_SECONDS,
             GROUP_INTERVAL_SECONDS, SCAN_SECONDS + SCRAPE_SECONDS + EVAL_SECONDS
             + GROUP_INTERVAL_SECONDS), flush=True)
    if fix_to_resolve > FIX_RESOLVE_BOUND or fleet_fix_to_resolve > FIX_RESOLVE_BOUND:
        raise Failure("a fix took longer than %ds to resolve" % FIX_RESOLVE_BOUND)
    if len(fleet_resolved) != 1 or fleet_resolved[0][1] != fleet_brains:
        raise Failure("want ONE resolved notification for all %d fleet brains, got %s"
                      % (FLEET_SIZE, [brains for _, brains in fleet_resolved]))
    verdict = query(prometheus_url, 'skeleton_coherence{brain="m1nd"}')
    if [(m.get("found_slug"), s["value"][1]) for m, s in zip(metric_labels(verdict), verdict)] \
            != [("m1nd", "1")]:
        raise Failure("after the fix, m1nd's verdict is %s" % verdict)
    check_no_quiet_brain_alerts(webhook, prometheus_url, quiet)

    # --- 8. a mismatch that comes and goes -----------------------------------------
    flap = check_flap(processes, webhook, env)
    check_no_quiet_brain_alerts(webhook, prometheus_url, quiet)

    pages = [a for n, a in webhook.alerts() if a.get("status") == "firing"]
    if any(a["labels"].get("alertname") not in (MISMATCH, DOWN, FLAPPING) for a in pages):
        raise Failure("unexpected alerts: %s" % json.dumps(pages))
    links = check_runbook_links(pages, [examples, fleet])
    return {"links": links, "outage": outage, "flap": flap, "write_to_page": write_to_page,
            "intervals": intervals, "fix_to_resolve": fix_to_resolve, "checked": checked,
            "notifications": len(webhook.notifications()), "exported": exported,
            "restart": restart, "storm": len(storm), "quiet": quiet}


def check_restart(args, processes, webhook, env):
    """Stops exporter A for RESTART_STOP_SECONDS with the incident firing and starts it
    again: the alert must stay firing with the same activeAt, and the pager must get
    neither a resolved notification nor a new page for m1nd."""
    prometheus_url, examples = env.prometheus_url, env.examples_instance
    before = prometheus_incident(prometheus_url, examples)
    if not before or before.get("state") != "firing":
        raise Failure("m1nd's mismatch is not firing before the restart: %s" % before)
    observations = {"polls": 0, "not_scraped_note": False}

    def watch_alert():
        alert = prometheus_incident(prometheus_url, examples)
        if (not alert or alert.get("state") != "firing"
                or alert.get("activeAt") != before.get("activeAt")):
            raise Failure("%.1fs into the restart m1nd's alert is %s (before: firing since "
                          "%s)" % (time.monotonic() - stopped_at,
                                   json.dumps(alert), before.get("activeAt")))
        observations["polls"] += 1
        if NOT_SCRAPED_NOTE in alert.get("annotations", {}).get("description", ""):
            observations["not_scraped_note"] = True

    stopped_at = time.monotonic()
    processes.stop("exporter-examples")
    while time.monotonic() - stopped_at < RESTART_STOP_SECONDS:
        processes.check_alive()
        watch_alert()
        time.sleep(0.5)
    start_exporter(args, processes, env, "exporter-examples", env.examples_config,
                   env.examples_port)
    started_at = time.monotonic()

    def scraped_again():
        watch_alert()
        up = query(prometheus_url, 'up{instance="%s"} == 1' % examples)
        return up and verdicts(prometheus_url, examples).get(("m1nd", "m1nd", "keyvault")) == "0"

    wait_until("Prometheus to scrape the restarted exporter", scraped_again,
               FIRST_DATA_TIMEOUT, processes, interval=0.5)
    scraped_at = time.monotonic()
    # A page that went back to pending would fire again after `for` + group_wait.
    watch_seconds = FOR_SECONDS + GROUP_WAIT_SECONDS + 2 * EVAL_SECONDS
    watch_until = scraped_at + watch_seconds
    while time.monotonic() < watch_until:
        processes.check_alive()
        watch_alert()
        time.sleep(0.5)
    resolved = [n for n, a in webhook.alerts()
                if n["at"] >= stopped_at and a.get("status") == "resolved"]
    repaged = [n for n, a in webhook.alerts()
               if n["at"] >= stopped_at and is_incident(a, examples)]
    print("restart: exporter stopped %.1fs, scraped again %.1fs after the stop, watched "
          "%ds more; %d resolved notifications, %d new notifications for m1nd, alert "
          "firing with the same activeAt in %d polls"
          % (started_at - stopped_at, scraped_at - stopped_at, watch_seconds, len(resolved),
             len(repaged), observations["polls"]), flush=True)
    if resolved or repaged:
        raise Failure("the restart reached the pager: %s"
                      % json.dumps([n["payload"] for n in resolved + repaged]))
    if not observations["not_scraped_note"]:
        raise Failure("while the exporter was stopped the description never said %r"
                      % NOT_SCRAPED_NOTE)
    return {"stopped": started_at - stopped_at, "resolved": len(resolved)}


def check_outage(args, processes, webhook, env, fleet_brains):
    """Stops both exporters for OUTAGE_SECONDS, longer than the mismatch rule's window,
    with m1nd and the 20 fleet brains firing, then starts them again. The pager must
    get ONE SkeletonCoherenceExporterDown notification naming both exporters, and for
    the 21 unfixed mismatches neither a resolved notification nor a new page: the
    down alert inhibits them in Alertmanager while the window ends them, and keeps
    firing after the recovery until they fire again under the same labels."""
    prometheus_url, examples, fleet = env.prometheus_url, env.examples_instance, env.fleet_instance
    stopped_at = time.monotonic()
    processes.stop("exporter-examples")
    processes.stop("exporter-fleet")
    log("stopped both exporters for %ds (mismatch window %ds, down `for:` %ds)"
        % (OUTAGE_SECONDS, WINDOW_SECONDS, DOWN_FOR_SECONDS))

    def down_pages():
        return [n for n in webhook.notifications() if n["at"] >= stopped_at
                and n["payload"].get("status") == "firing"
                and n["payload"].get("groupLabels", {}).get("alertname") == DOWN]

    wait_until("the pager to receive %s" % DOWN, down_pages, DOWN_PAGE_TIMEOUT, processes)
    # The window ends both mismatches inside Prometheus while the exporters are away.
    wait_until("Prometheus to resolve the mismatches the window no longer holds",
               lambda: not any(a.get("labels", {}).get("alertname") == MISMATCH
                               for a in prometheus_alerts(prometheus_url)),
               OUTAGE_SECONDS + WINDOW_SECONDS, processes, interval=0.5)
    resolved_in_prometheus = time.monotonic() - stopped_at
    while time.monotonic() - stopped_at < OUTAGE_SECONDS:
        processes.check_alive()
        time.sleep(0.5)
    start_exporter(args, processes, env, "exporter-examples", env.examples_config,
                   env.examples_port)
    start_exporter(args, processes, env, "exporter-fleet", env.fleet_config, env.fleet_port)
    started_at = time.monotonic()

    def firing_again():
        brains = sorted(a["labels"].get("brain") for a in prometheus_alerts(prometheus_url)
                        if a.get("labels", {}).get("alertname") == MISMATCH
                        and a.get("state") == "firing")
        return brains == sorted(["m1nd"] + fleet_brains)

    wait_until("the 21 unfixed mismatches to fire again in Prometheus", firing_again,
               FIRST_DATA_TIMEOUT, processes, interval=0.5)
    wait_until("%s to resolve after keep_firing_for" % DOWN,
               lambda: not any(a.get("labels", {}).get("alertname") == DOWN
                               for a in prometheus_alerts(prometheus_url)),
               KEEP_FIRING_SECONDS + FIRST_DATA_TIMEOUT, processes, interval=0.5)
    time.sleep(SETTLE_SECONDS + GROUP_INTERVAL_SECONDS)
    after = [n for n in webhook.notifications() if n["at"] >= stopped_at]
    down = [n for n in after
            if n["payload"].get("groupLabels", {}).get("alertname") == DOWN]
    down_firing = [n for n in down if n["payload"].get("status") == "firing"]
    mismatch = [n for n in after
                if n["payload"].get("groupLabels", {}).get("alertname") == MISMATCH]
    down_instances = sorted({a["labels"].get("instance")
                             for n in down_firing for a in n["payload"].get("alerts", [])})
    # One page is one Alertmanager group: a pager (PagerDuty, Opsgenie) keys its
    # incident on groupKey, and later notifications of the group update it.
    down_groups = sorted({n["payload"].get("groupKey") for n in down})
    print("outage: both exporters stopped %.0fs (mismatch window %ds, resolved inside "
          "Prometheus %.0fs into it): %d %s page(s) (alert groups) naming %s, in %d "
          "notification(s); "
          "%d notification(s) for the 21 unfixed mismatches (resolved or new)"
          % (started_at - stopped_at, WINDOW_SECONDS, resolved_in_prometheus,
             len(down_groups), DOWN, down_instances, len(down), len(mismatch)), flush=True)
    if len(down_groups) != 1 or down_instances != sorted([examples, fleet]):
        raise Failure("want ONE %s page (one group) naming both exporters, got %s"
                      % (DOWN, json.dumps([n["payload"] for n in down])))
    if mismatch:
        raise Failure("the outage reached the pager for unfixed mismatches: %s"
                      % json.dumps([n["payload"] for n in mismatch]))
    return {"stopped": started_at - stopped_at, "down_pages": len(down_groups),
            "mismatch_notifications": len(mismatch)}


def check_flap(processes, webhook, env):
    """m1nd's store alternates between a foreign and its own skeleton every FLAP_SECONDS
    (two m1nd servers on one runtime root, scaled down). SkeletonCoherenceMismatchFlapping
    must page once (the incident and its fix earlier were the first entry and exit), and
    from then on the brain's SkeletonCoherenceMismatch is held back (inhibit rule): no
    notification for it while the store keeps turning. Before the flapping page a
    mismatch may page when the machine is slow enough that one foreign turn is seen for
    longer than `for:` (the 45 s case that never pages is proven by promtool); those are
    counted and printed."""
    examples = env.examples_instance
    flap_at = time.monotonic()
    for turn in range(FLAP_TURNS):
        foreign = turn % 2 == 0
        write_store_atomically(env.m1nd_runtime_dir,
                               store_document("keyvault" if foreign else "m1nd", 10 + turn,
                                              KEYVAULT_BLOCKS if foreign else M1ND_BLOCKS))
        processes.check_alive()
        time.sleep(FLAP_SECONDS)
    flap_ended = time.monotonic()
    log("flapped m1nd's store %d times, %.1fs apart; it ends coherent" % (FLAP_TURNS, FLAP_SECONDS))

    def flapping_pages():
        return [n for n in webhook.notifications() if n["at"] >= flap_at
                and n["payload"].get("status") == "firing"
                and n["payload"].get("groupLabels", {}).get("alertname") == FLAPPING]

    wait_until("the pager to receive %s for m1nd" % FLAPPING, flapping_pages, PAGE_TIMEOUT,
               processes)
    time.sleep(SETTLE_SECONDS + FOR_SECONDS)
    flapping = flapping_pages()
    groups = sorted({n["payload"].get("groupKey") for n in flapping})
    brains = sorted({a["labels"].get("brain") for n in flapping
                     for a in n["payload"].get("alerts", [])})
    # A notification already on its way when the flapping alert arrived may still land
    # within one group interval.
    held_from = flapping[0]["at"] + GROUP_INTERVAL_SECONDS + 1
    mismatch = [n for n, a in webhook.alerts() if n["at"] >= flap_at
                and a["labels"].get("alertname") == MISMATCH and is_incident(a, examples)]
    after = [n for n in mismatch if n["at"] >= held_from]
    print("flap: m1nd's store alternated %d times every %.1fs -> %d %s page(s) for %s "
          "(%.1fs before the turning stopped); %s notifications for m1nd: %d before it, "
          "%d after" % (FLAP_TURNS, FLAP_SECONDS, len(groups), FLAPPING, brains,
                        flap_ended - flapping[0]["at"], MISMATCH, len(mismatch) - len(after),
                        len(after)), flush=True)
    if len(groups) != 1 or brains != ["m1nd"]:
        raise Failure("want ONE %s page for m1nd, got %s"
                      % (FLAPPING, json.dumps([n["payload"] for n in flapping])))
    if after:
        raise Failure("%s was not held back while %s fired: %s"
                      % (MISMATCH, FLAPPING, json.dumps([n["payload"] for n in after])))
    return {"flapping_pages": len(groups), "mismatch_notifications": len(after)}


def find_brain_verdict(node, brain):
    """The skeleton_coherence object of `brain` anywhere in a JSON document."""
    if isinstance(node, dict):
        if node.get("brain") == brain and isinstance(node.get("skeleton_coherence"), dict):
            return node["skeleton_coherence"]
        children = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = find_brain_verdict(child, brain)
        if found is not None:
            return found
    return None


def check_verdict_view(what, document):
    verdict = find_brain_verdict(document, "m1nd")
    want = {"status": "mismatch", "expected_slug": "m1nd", "found_slug": "keyvault"}
    if verdict is None or any(verdict.get(k) != v for k, v in want.items()):
        raise Failure("%s does not show m1nd's mismatch (want %s): %s"
                      % (what, want, json.dumps(document)[:2000]))


def check_runbook_views(exporter, config, exporter_url):
    """docs/runbook.md confirms a page with --once and /api/v1/brains: check both."""
    once = subprocess.run([exporter, "--config.file=%s" % config, "--once"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    try:
        document = json.loads(once.stdout)
    except ValueError:
        raise Failure("--once (status %d) did not print JSON: %r %r"
                      % (once.returncode, once.stdout[:500], once.stderr[-500:]))
    check_verdict_view("--once", document)
    status, body = http_get(exporter_url + "/api/v1/brains")
    try:
        document = json.loads(body)
    except ValueError:
        raise Failure("/api/v1/brains answered %d with no JSON: %r" % (status, body[:500]))
    if status != 200:
        raise Failure("/api/v1/brains answered %d" % status)
    check_verdict_view("/api/v1/brains", document)
    log("runbook views agree: --once (exit status %d) and /api/v1/brains show the mismatch"
        % once.returncode)


def check_queries(prometheus_url, queries):
    """Dashboard queries must return data; alert expressions what the scenario implies."""
    checked = {"dashboard": 0, "rule": 0}
    problems = []
    for q in queries:
        try:
            result = query(prometheus_url, q.expr)
        except Failure as error:
            problems.append("%s: %s" % (q.where, error))
            continue
        if q.kind in ("alert", "record"):
            checked["rule"] += 1
            if q.name == MISMATCH:
                want = [{"brain": "m1nd", "expected_slug": "m1nd", "found_slug": None}]
                got = [{k: m.get(k) for k in ("brain", "expected_slug", "found_slug")}
                       for m in metric_labels(result)]
                if got != want:
                    problems.append("%s: returned %s, want exactly %s" % (q.where, got, want))
            elif q.kind == "alert" and result:
                # A healthy, scanning, scraped exporter: every other condition is false.
                problems.append("%s: returned %s while the exporter is healthy"
                                % (q.where, metric_labels(result)))
        else:
            checked["dashboard"] += 1
            if not result:
                problems.append("%s: no data: %s" % (q.where, q.expr))
    if problems:
        raise Failure("dashboard/rule expressions:\n  " + "\n  ".join(problems))
    return checked


# Counters with a label per error kind may have no series before the first error;
# the dashboard's queries on them are robust to that (`or on() vector(0)`).
# Likewise a signal this scenario never raises (no brain here is coherent only by the
# prefix rule); its name is pinned by metrics_renderer_test and the promtool tests.
MAY_BE_ABSENT_WITHOUT_ERRORS = (
    "skeleton_coherence_store_read_errors_total",
    "skeleton_coherence_exporter_discovery_errors_total",
    "skeleton_coherence_prefix_ambiguous",
    # A series only while a verdict is stale (a store unreadable now): none here.
    "skeleton_coherence_stale",
    # Exported only when the web config serves TLS; this scenario runs plain HTTP.
    "skeleton_coherence_exporter_tls_certificate_not_after_seconds",
)


def check_exported_metrics(prometheus_url, used_metrics):
    """Every metric the dashboard and rules use is exported (catches name drift)."""
    missing, absent_counters = [], []
    for name in used_metrics:
        if query(prometheus_url, 'count({__name__="%s", job="%s"})' % (name, JOB)):
            continue
        (absent_counters if name in MAY_BE_ABSENT_WITHOUT_ERRORS else missing).append(name)
    if missing:
        raise Failure("metrics used by the dashboard/rules that the exporter does not "
                      "export: %s" % ", ".join(missing))
    if absent_counters:
        log("note: no series yet (no errors in this scenario): %s" % ", ".join(absent_counters))
    return len(used_metrics) - len(absent_counters)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exporter", required=True, help="skeleton-coherence-exporter binary")
    parser.add_argument("--source-dir", default=dashboard_queries.default_source_dir())
    parser.add_argument("--prometheus", help="default: prometheus on PATH")
    parser.add_argument("--alertmanager",
                        help="default: prometheus-alertmanager or alertmanager on PATH")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)

    try:
        static_checks(os.path.abspath(args.source_dir))
    except (Failure, ValueError, OSError) as error:
        print("e2e_alerting: FAIL: %s" % error, flush=True)
        return 1

    args.prometheus = find_tool(args.prometheus, ["prometheus"])
    args.alertmanager = find_tool(args.alertmanager, ["prometheus-alertmanager", "alertmanager"])
    if not args.prometheus or not args.alertmanager:
        return missing_tool("e2e_alerting", "needs prometheus and alertmanager (found %s, %s)"
                            % (args.prometheus, args.alertmanager))
    if not os.access(args.exporter, os.X_OK):
        print("e2e_alerting: FAIL: exporter %s is not an executable" % args.exporter)
        return 1
    args.exporter = os.path.abspath(args.exporter)

    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="scx-e2e-")
    processes = Processes(tmp)
    # A CTest timeout sends SIGTERM: turn it into an exception so `finally` cleans up.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))
    outcome = None
    try:
        outcome = run(args, tmp, processes)
    except Failure as error:
        print("e2e_alerting: FAIL: %s" % error, flush=True)
        processes.dump_logs()
    except ValueError as error:  # dashboard_queries.py could not read a file
        print("e2e_alerting: FAIL: %s" % error, flush=True)
    finally:
        processes.stop_all()
        if args.keep:
            log("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if outcome is None:
        return 1
    print("e2e_alerting: PASS in %.1fs: page %.2fs after the write (intervals sum %ds); "
          "exporter restart (%.0fs stopped): %d resolved notifications; outage of both "
          "exporters (%.0fs): %d down page, %d mismatch notifications; flap (%d turns): "
          "%d flapping page, %d mismatch notifications after it; %d brains at once: "
          "%d notification; resolved %.2fs after the fix; %d dashboard + %d rule "
          "expressions and %d exported metrics checked; %d notifications, none for %s"
          % (time.monotonic() - started, outcome["write_to_page"], outcome["intervals"],
             outcome["restart"]["stopped"], outcome["restart"]["resolved"],
             outcome["outage"]["stopped"], outcome["outage"]["down_pages"],
             outcome["outage"]["mismatch_notifications"], FLAP_TURNS,
             outcome["flap"]["flapping_pages"], outcome["flap"]["mismatch_notifications"],
             FLEET_SIZE,
             outcome["storm"], outcome["fix_to_resolve"], outcome["checked"]["dashboard"],
             outcome["checked"]["rule"], outcome["exported"], outcome["notifications"],
             ", ".join(outcome["quiet"])),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
