#!/usr/bin/env python3
"""End to end: a mismatch page holds while the exporter cannot judge the brain.

Verdict continuity (docs/discovery.md, "Losing sight of a brain"), with the real
exporter, a real Prometheus loading alerts/*.rules.yml and a real Alertmanager loading
alerts/alertmanager.yml, and the webhook receiver of e2e_alerting.py (whose helpers
this test imports) standing in for the pager. One exporter, run with --storage.path,
watches one registry owner brain, m1nd, in a temporary m1nd layout of this test's own:

  <tmp>/registry/instances/owner.json   a whole instance record ("medulla") whose
                                        runtime root is <tmp>/runtime/m1nd-runtime
                                        and whose workspace_root names another slug
  <tmp>/runtime/m1nd-runtime/           ingest_roots.json = ["<tmp>/homes/u/m1nd"]
                                        and the store, system_blocks.json
  <tmp>/homes/u/m1nd/                   the repo that names the brain m1nd

  0. Healthy: m1nd serves sk_m1nd_candidate; Prometheus scrapes the ok verdict and
     nothing is sent.
  1. Incident: the store is atomically replaced by one serving sk_keyvault_candidate.
     The pager must get SkeletonCoherenceMismatch (severity critical) for brain=m1nd.
  2. Torn store: the store is atomically replaced by half a JSON document.
  3. Restart while torn: the exporter is stopped (SIGTERM) and started again with the
     same --storage.path. A second exporter without --storage.path, not scraped, is
     the control: it has no verdict for m1nd (so nothing else holds the page).
  4. Runtime dir moved away: the runtime root is renamed out of view; the registry
     entry still names it.
  5. Repo hidden: the exporter is stopped, the runtime root moved back with a whole
     foreign store, and the exporter started in a new mount namespace with a tmpfs
     over <tmp>/homes: it cannot see the repo and reports m1nd identity_unknown.
     Skipped (a SKIP line) when unshare/mount is not permitted here.
  After each of 2-5 the exporter's /metrics must show the mismatch kept, stale
  (skeleton_coherence{brain="m1nd",found_slug="keyvault"} 0 and
  skeleton_coherence_stale{brain="m1nd"} 1) in the expected state, and the test holds
  for HOLD_SECONDS (longer than the shortened window + `for:`) while Prometheus keeps
  the alert firing with the same activeAt and the pager gets neither a resolved
  notification nor a new page.
  6. Fix: the exporter is started normally and the store replaced by one serving
     sk_m1nd_candidate: the pager must get the resolved notification for m1nd within
     RESOLVE_BOUND seconds.
  No SkeletonCoherenceMismatchFlapping may page. The runtime root is moved back while
  the exporter is stopped, so that no scrape sees the brain in mismatch between steps
  4 and 5: brain_state{state="mismatch"} is 0 while the verdict is held (unreadable,
  identity_unknown), so each time the brain comes back into view still foreign counts
  as one more entry for that rule, and a third one would page Flapping, which holds
  back the mismatch alert's resolved notification in Alertmanager.

To run in seconds it shortens, in temporary copies of the checked-in configs, the
mismatch rule's `for:` to FOR_SECONDS and its 20m windows to WINDOW_SECONDS, as
e2e_alerting.py does (and its other changes: Alertmanager group_wait/group_interval 1s,
scans, scrapes and evaluations every second).

Usage (normally through CTest: `ctest -R e2e_continuity`):
  e2e_continuity.py --exporter build/bin/skeleton-coherence-exporter --source-dir .

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_alerting as e2e  # noqa: E402  (sibling module)
from missing_tool import missing_tool  # noqa: E402  (tests/missing_tool.py)

NAME = "e2e_continuity"
e2e.LOG_NAME = NAME
Failure = e2e.Failure

BRAIN = "m1nd"
FOR_SECONDS = e2e.FOR_SECONDS
WINDOW_SECONDS = 8
# Each step holds longer than the window and `for:` together: a page the exporter
# stopped holding would have resolved in Prometheus within that.
HOLD_SECONDS = WINDOW_SECONDS + FOR_SECONDS + 3
RESOLVE_BOUND = 30
STATE_TIMEOUT = 15
POLL_SECONDS = 0.5


def log(message):
    print("%s: %s" % (NAME, message), flush=True)


# --- the m1nd layout -------------------------------------------------------------


def make_layout(tmp):
    """The registry, runtime root, repo and config of one owner brain, m1nd."""
    layout = types.SimpleNamespace(
        registry=os.path.join(tmp, "registry"),
        runtime_root=os.path.join(tmp, "runtime", "m1nd-runtime"),
        moved_root=os.path.join(tmp, "moved-away", "m1nd-runtime"),
        homes=os.path.join(tmp, "homes"),
        repo=os.path.join(tmp, "homes", "u", "m1nd"),
        # Not a memory sidecar and another slug: with the repo hidden, m1nd's naming
        # rule could name the brain "devgraph" instead, so its identity is unknown.
        workspace=os.path.join(tmp, "workspace", "devgraph"),
        state=os.path.join(tmp, "state"),
        config=os.path.join(tmp, "config.yml"))
    for folder in (os.path.join(layout.registry, "instances"), layout.runtime_root,
                   os.path.dirname(layout.moved_root), layout.repo, layout.workspace,
                   layout.state):
        os.makedirs(folder)
    record = {
        "instance_id": "inst_0wner0000001",
        "workspace_root": layout.workspace,
        "runtime_root": layout.runtime_root,
        "graph_source": os.path.join(layout.runtime_root, "graph_snapshot.json"),
        "plasticity_state": os.path.join(layout.runtime_root, "plasticity_state.json"),
        "pid": 4242, "bind": "127.0.0.1", "port": 1337,
        "started_at_ms": 1767225600000, "last_heartbeat_ms": 1767225600000,
        "mode": "read_write", "status": "running", "owner_live": True, "stale": False,
        "conflicts": [], "brain_kind": "medulla",
    }
    with open(os.path.join(layout.registry, "instances", "owner.json"), "w",
              encoding="utf-8") as f:
        json.dump(record, f, indent=2)
    with open(os.path.join(layout.runtime_root, "ingest_roots.json"), "w",
              encoding="utf-8") as f:
        json.dump([layout.repo], f)
    e2e.write_store_atomically(layout.runtime_root,
                               e2e.store_document(BRAIN, 1, e2e.M1ND_BLOCKS))
    with open(layout.config, "w", encoding="utf-8") as f:
        f.write("m1nd_registries: [%s]\n" % e2e.yaml_string(layout.registry))
    return layout


def write_torn_store(runtime_dir, document):
    """Replaces the store (atomically) with the first half of a JSON document."""
    text = json.dumps(document, indent=2)
    path = os.path.join(runtime_dir, "system_blocks.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text[:len(text) // 2])
        f.flush()
        os.fsync(f.fileno())
    os.rename(path + ".tmp", path)


def namespace_prefix(homes):
    """The command that runs the exporter in a new mount namespace whose `homes` is an
    empty tmpfs: the repo under it is hidden from the exporter, as by a sandbox."""
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mount -t tmpfs none "$1" && shift && exec "$@"', "sh", homes]


def namespace_permitted(homes):
    """(True, "") when namespace_prefix works here; (False, why) when it does not."""
    if not shutil.which("unshare"):
        return False, "unshare is not installed"
    try:
        probe = subprocess.run(namespace_prefix(homes) + ["sh", "-c", 'test -z "$(ls -A "$1")"',
                                                          "sh", homes],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, str(error)
    if probe.returncode != 0:
        return False, ("unshare --mount + mount -t tmpfs exited %d: %s"
                       % (probe.returncode, probe.stdout.decode("utf-8", "replace").strip()))
    if not os.listdir(homes):
        return False, "the tmpfs leaked out of the namespace"
    return True, ""


# --- the exporter's own view -----------------------------------------------------


_SAMPLE_RE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$")
_LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def brain_samples(exporter_url):
    """{(metric name, frozenset of labels): value} of brain m1nd on /metrics."""
    status, body = e2e.http_get(exporter_url + "/metrics")
    if status != 200:
        return None
    samples = {}
    for line in body.decode("utf-8", "replace").splitlines():
        match = _SAMPLE_RE.match(line)
        if not match or not match.group(1).startswith("skeleton_coherence"):
            continue
        labels = dict(_LABEL_RE.findall(match.group(2) or ""))
        if labels.get("brain") == BRAIN:
            samples[(match.group(1), frozenset(labels.items()))] = match.group(3)
    return samples


def brain_view(samples):
    """What /metrics says of m1nd: state, verdicts {found_slug: value}, stale."""
    view = {"state": None, "verdicts": {}, "stale": None}
    for (name, labels), value in sorted(samples.items()):
        labels = dict(labels)
        if name == "skeleton_coherence_brain_state" and value == "1":
            view["state"] = labels.get("state")
        elif name == "skeleton_coherence" and labels.get("expected_slug") == BRAIN:
            view["verdicts"][labels.get("found_slug")] = value
        elif name == "skeleton_coherence_stale":
            view["stale"] = value
    return view


def brain_json(exporter_url):
    """Brain m1nd's object of /api/v1/brains, or None."""
    status, body = e2e.http_get(exporter_url + "/api/v1/brains")
    if status != 200:
        return None
    try:
        document = json.loads(body)
    except ValueError:
        return None
    brains = document.get("brains", []) if isinstance(document, dict) else document
    for brain in brains if isinstance(brains, list) else []:
        if isinstance(brain, dict) and brain.get("brain") == BRAIN:
            return brain
    return None


HELD = {"keyvault": "0"}  # the mismatch kept, and nothing else


def wait_exporter_view(env, processes, what, state, verdicts, stale, read_error=None):
    """Waits until the exporter's /metrics shows m1nd in `state` with `verdicts` and
    `stale` (and, when given, /api/v1/brains the store_error reason `read_error`)."""
    want = {"state": state, "verdicts": verdicts, "stale": stale}
    last = {}

    def shows():
        samples = brain_samples(env.exporter_url)
        if samples is None:
            return False
        last["view"] = brain_view(samples)
        last["json"] = brain_json(env.exporter_url)
        if last["view"] != want:
            return False
        if read_error is not None:
            error = (last["json"] or {}).get("store_error") or {}
            return error.get("reason") == read_error
        return True

    try:
        e2e.wait_until("the exporter to show m1nd %s" % what, shows, STATE_TIMEOUT, processes)
    except Failure as error:
        raise Failure("%s: want %s%s; /metrics shows %s; /api/v1/brains: %s"
                      % (error, want, ", store_error %s" % read_error if read_error else "",
                         last.get("view"), json.dumps(last.get("json"))))
    log("exporter shows m1nd %s: state %s, skeleton_coherence %s, stale %s%s"
        % (what, state, verdicts, stale,
           ", store_error %s" % json.dumps(last["json"].get("store_error"))
           if read_error else ""))
    return last["json"]


# --- the page as Prometheus and the pager have it --------------------------------


def mismatch_notifications(webhook, status, since, instance):
    return [n for n, a in webhook.alerts()
            if n["at"] >= since and a.get("status") == status and e2e.is_incident(a, instance)]


def hold(step, env, processes, webhook, page):
    """For HOLD_SECONDS: m1nd's alert stays firing in Prometheus with the activeAt of
    the page, and the pager gets no resolved notification and no new page."""
    started = time.monotonic()
    polls = 0
    while time.monotonic() - started < HOLD_SECONDS:
        processes.check_alive()
        alert = e2e.prometheus_incident(env.prometheus_url, env.instance)
        if (not alert or alert.get("state") != "firing"
                or alert.get("activeAt") != page["active_at"]):
            raise Failure("%s: %.1fs into the hold m1nd's alert in Prometheus is %s (paged "
                          "firing since %s)" % (step, time.monotonic() - started,
                                                json.dumps(alert), page["active_at"]))
        polls += 1
        time.sleep(POLL_SECONDS)
    check_pager_quiet(step, webhook, env, page)
    log("%s: held %ds (window %ds + for %ds): firing with the same activeAt in %d polls, "
        "no resolved notification, no new page" % (step, HOLD_SECONDS, WINDOW_SECONDS,
                                                   FOR_SECONDS, polls))
    return HOLD_SECONDS


def check_pager_quiet(step, webhook, env, page):
    resolved = mismatch_notifications(webhook, "resolved", page["at"], env.instance)
    repaged = [n for n in mismatch_notifications(webhook, "firing", page["at"], env.instance)
               if n is not page["notification"]]
    if resolved or repaged:
        raise Failure("%s reached the pager: %d resolved, %d new page(s): %s"
                      % (step, len(resolved), len(repaged),
                         json.dumps([n["payload"] for n in resolved + repaged])))


# --- the scenario ----------------------------------------------------------------


def start(args, processes, env, namespace=False, storage=True, name="exporter", port=None):
    flags = ["--storage.path=%s" % env.layout.state] if storage else []
    prefix = namespace_prefix(env.layout.homes) if namespace else ()
    e2e.start_exporter(args, processes, env, name, env.layout.config, port or env.port,
                       flags=flags, prefix=prefix)


def run(args, tmp, processes):
    source_dir = os.path.abspath(args.source_dir)
    queries, _ = e2e.static_checks(source_dir)
    layout = make_layout(tmp)
    permitted, why_not = namespace_permitted(layout.homes)
    port, control_port, webhook_port, alertmanager_port, prometheus_port = e2e.free_ports(5)
    env = types.SimpleNamespace(
        layout=layout, queries=queries,
        rule_paths=e2e.dashboard_queries.rule_files(source_dir),
        alertmanager_yml=os.path.join(source_dir, "alerts", "alertmanager.yml"),
        port=port, control_port=control_port, webhook_port=webhook_port,
        alertmanager_port=alertmanager_port, prometheus_port=prometheus_port,
        instance="127.0.0.1:%d" % port, exporter_url="http://127.0.0.1:%d" % port,
        alertmanager_url="http://127.0.0.1:%d" % alertmanager_port,
        prometheus_url="http://127.0.0.1:%d" % prometheus_port)
    webhook = e2e.Webhook(webhook_port)
    webhook.start()
    try:
        return scenario(args, tmp, processes, webhook, env, permitted, why_not)
    finally:
        webhook.stop()


def scenario(args, tmp, processes, webhook, env, namespace_ok, why_not):
    layout = env.layout
    timings = {}
    prometheus_url = env.prometheus_url

    start(args, processes, env)
    e2e.start_alertmanager(args, tmp, processes, env)
    e2e.start_prometheus(args, tmp, processes, env, targets=[env.instance],
                         window_seconds=WINDOW_SECONDS)

    # --- 0. healthy -----------------------------------------------------------------
    wait_exporter_view(env, processes, "healthy", "ok", {BRAIN: "1"}, None)
    e2e.wait_until("Prometheus to scrape m1nd's ok verdict",
                   lambda: e2e.verdicts(prometheus_url, env.instance)
                   == {(BRAIN, BRAIN, BRAIN): "1"}, e2e.FIRST_DATA_TIMEOUT, processes)
    time.sleep(FOR_SECONDS + 1)
    if webhook.notifications() or e2e.prometheus_alerts(prometheus_url):
        raise Failure("alerts or notifications while m1nd is healthy: %s %s"
                      % (json.dumps(e2e.prometheus_alerts(prometheus_url)),
                         json.dumps([n["payload"] for n in webhook.notifications()])))
    log("healthy: m1nd ok, no alert, no notification")

    # --- 1. the incident --------------------------------------------------------------
    foreign = e2e.store_document("keyvault", 2, e2e.KEYVAULT_BLOCKS)
    e2e.write_store_atomically(layout.runtime_root, foreign)
    written_at = time.monotonic()
    log("incident: m1nd's store now serves sk_keyvault_candidate")
    notification, alert = e2e.wait_until(
        "the pager to receive a firing %s for brain m1nd" % e2e.MISMATCH,
        lambda: e2e.find_mismatch_alert(webhook, "firing", written_at, env.instance),
        e2e.PAGE_TIMEOUT, processes)
    timings["write_to_page"] = notification["at"] - written_at
    if alert["labels"].get("severity") != "critical" or notification["path"] != "/alerts":
        raise Failure("the page is not critical on the pager: %s at %s"
                      % (alert["labels"], notification["path"]))
    prometheus_alert = e2e.prometheus_incident(prometheus_url, env.instance)
    if not prometheus_alert or prometheus_alert.get("state") != "firing":
        raise Failure("paged, but Prometheus has m1nd's alert as %s"
                      % json.dumps(prometheus_alert))
    page = {"notification": notification, "at": notification["at"],
            "active_at": prometheus_alert["activeAt"]}
    wait_exporter_view(env, processes, "in mismatch", "mismatch", HELD, None)
    log("paged %.2fs after the write (critical, activeAt %s): %s"
        % (timings["write_to_page"], page["active_at"],
           alert.get("annotations", {}).get("summary")))

    # --- 2. torn store ----------------------------------------------------------------
    write_torn_store(layout.runtime_root, e2e.store_document("keyvault", 3, e2e.KEYVAULT_BLOCKS))
    log("torn: m1nd's store is now half a JSON document")
    wait_exporter_view(env, processes, "with its store torn", "unreadable", HELD, "1",
                       read_error="parse")
    timings["torn"] = hold("torn store", env, processes, webhook, page)

    # --- 3. restart while torn --------------------------------------------------------
    state_file = os.path.join(layout.state, "state.json")
    if not os.path.isfile(state_file):
        raise Failure("no %s after the incident" % state_file)
    stopped_at = time.monotonic()
    processes.stop("exporter")
    start(args, processes, env)
    timings["restart_gap"] = time.monotonic() - stopped_at
    wait_exporter_view(env, processes, "restarted while torn", "unreadable", HELD, "1")
    # The control: an exporter without --storage.path has no verdict to hold.
    start(args, processes, env, storage=False, name="control", port=env.control_port)
    control_url = "http://127.0.0.1:%d" % env.control_port
    control = brain_view(brain_samples(control_url) or {})
    processes.stop("control")
    if control["state"] != "unreadable" or control["verdicts"] or control["stale"]:
        raise Failure("the control exporter (no --storage.path) shows m1nd as %s, want "
                      "state unreadable, no verdict, not stale" % control)
    log("control: an exporter without --storage.path shows m1nd %s (nothing to hold the "
        "page)" % control)
    timings["restart"] = hold("restart while torn", env, processes, webhook, page)

    # --- 4. runtime dir moved away ----------------------------------------------------
    os.rename(layout.runtime_root, layout.moved_root)
    log("moved: the runtime root is now %s (the registry still names %s)"
        % (layout.moved_root, layout.runtime_root))
    wait_exporter_view(env, processes, "with its runtime dir out of view", "unreadable",
                       HELD, "1", read_error="unseen")
    timings["moved"] = hold("runtime dir moved away", env, processes, webhook, page)

    # --- 5. repo hidden in a mount namespace ------------------------------------------
    processes.stop("exporter")
    os.rename(layout.moved_root, layout.runtime_root)
    e2e.write_store_atomically(layout.runtime_root,
                               e2e.store_document("keyvault", 4, e2e.KEYVAULT_BLOCKS))
    if namespace_ok:
        start(args, processes, env, namespace=True)
        log("hidden: exporter restarted in a mount namespace with a tmpfs over %s; the "
            "runtime root is back with a whole foreign store" % layout.homes)
        brain = wait_exporter_view(env, processes, "with its repo hidden", "identity_unknown",
                                   HELD, "1")
        log("identity_note: %s" % brain.get("identity_note"))
        timings["hidden"] = hold("repo hidden", env, processes, webhook, page)
        processes.stop("exporter")
    else:
        print("%s: SKIP step 5 (repo hidden in a mount namespace): %s" % (NAME, why_not),
              flush=True)
        timings["hidden"] = None

    # --- 6. the fix -------------------------------------------------------------------
    start(args, processes, env)
    wait_exporter_view(env, processes, "seen again, still foreign", "mismatch", HELD, None)
    check_pager_quiet("the restart out of the namespace", webhook, env, page)
    e2e.write_store_atomically(layout.runtime_root,
                               e2e.store_document(BRAIN, 5, e2e.M1ND_BLOCKS))
    fixed_at = time.monotonic()
    log("fixed: m1nd serves sk_m1nd_candidate again")
    resolved, _ = e2e.wait_until(
        "the pager to receive the resolved %s for m1nd" % e2e.MISMATCH,
        lambda: e2e.find_mismatch_alert(webhook, "resolved", fixed_at, env.instance),
        RESOLVE_BOUND, processes)
    timings["fix_to_resolve"] = resolved["at"] - fixed_at
    wait_exporter_view(env, processes, "fixed", "ok", {BRAIN: "1"}, None)

    pages = [(n, a) for n, a in webhook.alerts() if n["path"] == "/alerts"]
    other = [a["labels"] for n, a in pages if a["labels"].get("alertname") != e2e.MISMATCH]
    if other:
        raise Failure("other pages than %s: %s" % (e2e.MISMATCH, other))
    firing = mismatch_notifications(webhook, "firing", 0, env.instance)
    resolved_all = mismatch_notifications(webhook, "resolved", 0, env.instance)
    if len(firing) != 1 or len(resolved_all) != 1:
        raise Failure("want one page and one resolved notification for m1nd, got %d and %d"
                      % (len(firing), len(resolved_all)))
    timings["tickets"] = sorted({a["labels"].get("alertname") for n, a in webhook.alerts()
                                 if n["path"] != "/alerts"})
    return timings


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exporter", required=True, help="skeleton-coherence-exporter binary")
    parser.add_argument("--source-dir", default=e2e.dashboard_queries.default_source_dir())
    parser.add_argument("--prometheus", help="default: prometheus on PATH")
    parser.add_argument("--alertmanager",
                        help="default: prometheus-alertmanager or alertmanager on PATH")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)

    args.prometheus = e2e.find_tool(args.prometheus, ["prometheus"])
    args.alertmanager = e2e.find_tool(args.alertmanager,
                                      ["prometheus-alertmanager", "alertmanager"])
    if not args.prometheus or not args.alertmanager:
        return missing_tool(NAME, "needs prometheus and alertmanager (found %s, %s)"
                            % (args.prometheus, args.alertmanager))
    if not os.access(args.exporter, os.X_OK):
        print("%s: FAIL: exporter %s is not an executable" % (NAME, args.exporter))
        return 1
    args.exporter = os.path.abspath(args.exporter)

    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="scx-e2e-continuity-")
    processes = e2e.Processes(tmp)
    # A CTest timeout sends SIGTERM: turn it into an exception so `finally` cleans up.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))
    timings = None
    try:
        timings = run(args, tmp, processes)
    except (Failure, ValueError, OSError) as error:
        print("%s: FAIL: %s" % (NAME, error), flush=True)
        processes.dump_logs()
    finally:
        processes.stop_all()
        if args.keep:
            log("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if timings is None:
        return 1
    hidden = ("held %ds" % timings["hidden"] if timings["hidden"] is not None
              else "SKIPPED (no mount namespace here)")
    print("%s: PASS in %.1fs: paged %.2fs after the write; held (no resolved, no new "
          "page, firing with one activeAt) through a torn store %ds, a restart while torn "
          "(%.1fs down) %ds, the runtime dir moved away %ds, the repo hidden %s; resolved "
          "%.2fs after the fix (bound %ds); tickets: %s"
          % (NAME, time.monotonic() - started, timings["write_to_page"], timings["torn"],
             timings["restart_gap"], timings["restart"], timings["moved"], hidden,
             timings["fix_to_resolve"], RESOLVE_BOUND, timings["tickets"] or "none"),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
