#!/usr/bin/env python3
"""The job regex and the runbook address are set in one place.

Runs deploy/kubernetes/generate.py --out with a job regex and a runbook address of a
site, and checks the copies it writes (the rules, the dashboard, alertmanager.yml and
the two Kubernetes files): nothing of the defaults is left, every `up` selector of the rules and the
dashboard's `job` variable use the site's regex, every runbook_url starts with the
site's address, `promtool check rules` accepts the rules (when installed), and bad
settings are refused. With --site-label region --site-label cluster every `by`/`on`
clause that held `cluster`, every annotation query and every group_by and inhibit
`equal:` of alertmanager.yml carry both labels (and `amtool check-config` accepts it,
when installed). Then the checked-in copies are still what the script writes.

Usage: customize_test.py SOURCE_DIR
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

JOB_REGEX = 'skeleton-coherence|brains-"prod"'
RUNBOOK = "https://wiki.example.org/sre/scx-runbook.md"
DEFAULT_JOB = ".*skeleton-coherence.*"
# The sources' runbook links: the rules' template and the dashboard's variables.
DEFAULT_RUNBOOK_LINKS = (
    'runbook_url: \'{{ with printf "sort_desc(4 * skeleton_coherence_exporter_runbook_info',
    "${runbook_scheme}://${runbook_instance}/runbook")
SITE_LABELS = ["region", "cluster"]


def fail(message):
    print("customize_test: FAIL: " + message)
    sys.exit(1)


def run(generate, *args):
    return subprocess.run([sys.executable, str(generate), *args], capture_output=True,
                          text=True, timeout=60)


def check_site_labels(source_dir, out):
    """Every place the sources compare `cluster` compares the site labels instead."""
    joined = ", ".join(SITE_LABELS)
    alerts = source_dir / "alerts"
    sources = {"skeleton-coherence.rules.yml": alerts / "skeleton-coherence.rules.yml",
               "alertmanager.yml": alerts / "alertmanager.yml"}
    for name, source in sources.items():
        code = [line for line in source.read_text().splitlines()
                if not line.lstrip().startswith("#")]
        copy = [line for line in (out / name).read_text().splitlines()
                if not line.lstrip().startswith("#")]
        places = sum(line.count("cluster") for line in code)
        if not places:
            fail("%s no longer names the default site label `cluster`" % name)
        regions = sum(line.count("region") for line in copy)
        if regions != places:
            fail("%s: `region` is in %d places, `cluster` was in %d" % (name, regions, places))
    rules = (out / "skeleton-coherence.rules.yml").read_text()
    for clause in re.findall(r"\b(?:by|on) \(([^)]*)\)", rules):
        if "instance" in clause and not clause.startswith(joined + ", job, instance"):
            fail("a by/on clause without the site labels: (%s)" % clause)
    for query in re.findall(r'printf "([^"]*%q[^"]*)"', rules):
        if not query.count("region=%q,cluster=%q,job=%q"):
            fail("an annotation query without the site labels: %s" % query)
    am = (out / "alertmanager.yml").read_text()
    for field in re.findall(r"(?m)^\s*(?:group_by|equal): \[([^]]*)\]", am):
        if joined not in field:
            fail("alertmanager.yml: [%s] lacks the site labels" % field)


def check_extra_labels(out):
    """--label team=payments: on every alert of the rules and the PrometheusRule."""
    import yaml
    docs = [yaml.safe_load((out / "skeleton-coherence.rules.yml").read_text())]
    docs += [d["spec"] for d in yaml.safe_load_all((out / "prometheusrule.yml").read_text()) if d]
    for doc in docs:
        alerts = [r for g in doc["groups"] for r in g["rules"] if "alert" in r]
        if not alerts:
            fail("no alerts in a customized rules file")
        for rule in alerts:
            labels = rule.get("labels", {})
            if labels.get("team") != "payments" or labels.get("pager") != 'on call "eu"':
                fail("%s has labels %s, want team=payments and the pager label"
                     % (rule["alert"], labels))


def main(source_dir):
    generate = source_dir / "deploy" / "kubernetes" / "generate.py"
    with tempfile.TemporaryDirectory(prefix="scx-customize-") as tmp:
        out = pathlib.Path(tmp) / "site"
        done = run(generate, "--out", str(out), "--job-regex", JOB_REGEX,
                   "--runbook-url", RUNBOOK,
                   *[arg for label in SITE_LABELS for arg in ("--site-label", label)],
                   "--label", "team=payments", "--label", 'pager=on call "eu"')
        if done.returncode != 0:
            fail("generate.py --out failed: " + done.stderr)
        names = sorted(p.name for p in out.iterdir())
        want = ["alertmanager.yml", "dashboard-configmap.yml", "prometheusrule.yml",
                "skeleton-coherence.json", "skeleton-coherence.rules.yml",
                "skeleton-coherence.tmpl"]
        if names != want:
            fail("wrote %s, want %s" % (names, want))
        for path in out.iterdir():
            text = path.read_text()
            for default in (DEFAULT_JOB, *DEFAULT_RUNBOOK_LINKS):
                if default in text:
                    fail("%s still holds the default %s" % (path.name, default))
        rules = (out / "skeleton-coherence.rules.yml").read_text()
        promql_regex = JOB_REGEX.replace('"', '\\"')
        # The `up{job=%q,...}` of the annotations' queries take the alert's own labels.
        up_selectors = [s for s in re.findall(r"\bup\{([^}]*)\}", rules) if "%q" not in s]
        if not up_selectors or any(s != 'job=~"%s"' % promql_regex for s in up_selectors):
            fail("the rules' up selectors are %s" % up_selectors)
        urls = re.findall(r"runbook_url: (\S+)", rules)
        if not urls or any(not u.startswith(RUNBOOK + "#") for u in urls):
            fail("runbook_url annotations: %s" % urls)
        dashboard = json.loads((out / "skeleton-coherence.json").read_text())
        job = [v for v in dashboard["templating"]["list"] if v.get("name") == "job"]
        if not job or job[0].get("query") != JOB_REGEX or job[0]["current"]["value"] != JOB_REGEX:
            fail("the dashboard's job variable is %s" % job)
        if RUNBOOK not in (out / "prometheusrule.yml").read_text():
            fail("prometheusrule.yml does not carry the site's runbook")
        if JOB_REGEX.replace('"', '\\"') not in (out / "dashboard-configmap.yml").read_text():
            fail("dashboard-configmap.yml does not carry the site's job regex")
        check_site_labels(source_dir, out)
        check_extra_labels(out)
        promtool = shutil.which("promtool")
        if promtool:
            check = subprocess.run(
                [promtool, "check", "rules", str(out / "skeleton-coherence.rules.yml")],
                capture_output=True, text=True, timeout=60)
            if check.returncode != 0:
                fail("promtool refuses the site's rules: " + check.stdout + check.stderr)
        amtool = shutil.which("amtool")
        if amtool:
            check = subprocess.run([amtool, "check-config", str(out / "alertmanager.yml")],
                                   capture_output=True, text=True, timeout=60)
            if check.returncode != 0:
                fail("amtool refuses the site's alertmanager.yml: " + check.stdout + check.stderr)
        for bad in (["--job-regex", "a(b"], ["--runbook-url", "wiki/runbook.md"],
                    ["--runbook-url", RUNBOOK + "#top"], ["--site-label", "job"],
                    ["--site-label", "9x"], ["--site-label", "a", "--site-label", "a"],
                    ["--label", "team"], ["--label", "severity=x"], ["--label", "9=x"],
                    ["--label", "team=a", "--label", "team=b"]):
            done = run(generate, "--out", str(out), *bad)
            if done.returncode == 0:
                fail("generate.py accepted %s" % bad)
        done = run(generate, "--job-regex", "x")
        if done.returncode == 0:
            fail("generate.py rewrote the checked-in files with a site setting")
    if run(generate, "--check").returncode != 0:
        fail("deploy/kubernetes/ is not what generate.py writes")
    print("customize_test: PASS: rules, dashboard and both Kubernetes files carry the "
          "site's job regex and runbook address%s"
          % ("" if promtool else " (promtool not installed)"))


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]).resolve())
