#!/usr/bin/env python3
"""Generates the Kubernetes PrometheusRule and Grafana dashboard ConfigMap, and
copies of the rules and dashboard for your site.

alerts/*.rules.yml and dashboards/*.json are the one source of truth; this script
copies them verbatim into

  deploy/kubernetes/prometheusrule.yml         one PrometheusRule per rules file,
                                               without the groups for static and
                                               file_sd fleets (NOT_ON_KUBERNETES)
  deploy/kubernetes/dashboard-configmap.yml    one ConfigMap, one key per dashboard,
                                               labelled for Grafana's sidecar

Usage: generate.py           rewrite both files
       generate.py --check   exit 1 if either file is not what this script writes
       generate.py --out DIR [--job-regex REGEX] [--runbook-url URL]
                             [--site-label NAME]... [--label NAME=VALUE]...
                             write the rules, the dashboards, alertmanager.yml and both
                             Kubernetes files into DIR with the site settings replaced,
                             in one place:
                             REGEX selects the exporter's scrape jobs (the rules' `up`
                             selectors and the dashboard's `job` variable; default
                             .*skeleton-coherence.*), URL is where your copy of
                             docs/runbook.md is read (every alert's runbook_url and
                             the dashboard's links; give the exporter the same as
                             --web.runbook-url). Without it they link the /runbook
                             a live exporter serves (docs/alerting.md).
                             --site-label (repeatable) names the labels that tell your
                             sites apart (default: cluster). They replace `cluster` in
                             the rules' `by`/`on` clauses and annotation queries and in
                             every group_by and inhibit `equal:` of alertmanager.yml.
                             --label NAME=VALUE (repeatable) adds a label to every
                             alert (a `team` for routing, say), next to its severity.
                             skeleton-coherence.tmpl (the notification templates) is
                             copied next to alertmanager.yml.
The copy is textual (the rule text, comments included, indented under `spec:`), so
that the generated files read like their sources; tests/deploy/kubernetes_test.py
parses them back and compares with the sources.
"""
import argparse
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT_DIR = ROOT / "deploy" / "kubernetes"
NAME = "skeleton-coherence-exporter"
NAMESPACE = "skeleton-coherence-exporter"
# The two site settings as the sources spell them.
DEFAULT_JOB_REGEX = ".*skeleton-coherence.*"
# The runbook as the sources link it, served by the exporters themselves: every
# alert's runbook_url is a template that asks Prometheus for a live exporter
# (skeleton_coherence_exporter_runbook_info, its own first) and links its /runbook;
# the dashboard's links use its hidden runbook_scheme and runbook_instance variables.
# --runbook-url URL replaces both with URL (plus the section's #anchor).
DEFAULT_RUNBOOK_URL = ""
RULE_RUNBOOK_LINK = re.compile(
    r"runbook_url: '\{\{ with printf \"sort_desc\(4 \* skeleton_coherence_exporter_runbook_info"
    r"[^']*/runbook#([a-z]+)'")
DASHBOARD_RUNBOOK_LINK = "${runbook_scheme}://${runbook_instance}/runbook"
# The site label the sources carry wherever an alert's identity is compared: the
# rules' `by (cluster, job, instance...)` / `on (...)`, their annotation queries
# (`cluster=%q,` with `$labels.cluster`) and alertmanager.yml's group_by and equal.
DEFAULT_SITE_LABELS = ("cluster",)
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
# Labels of the alerts themselves: a site label or an extra label cannot be one.
RESERVED_LABELS = {"alertname", "severity", "job", "instance", "brain", "expected_slug",
                   "found_slug", "ambiguous_slug", "state", "namespace", "daemonset"}


# Rule groups left out of the PrometheusRule: on Kubernetes the DaemonSet knows where
# the exporter should run (SkeletonCoherenceDaemonSetIncomplete), and a target that
# leaves discovery is a node scaled down, not a missing exporter.
NOT_ON_KUBERNETES = ("skeleton-coherence-static-targets",)


def without_groups(text, names):
    """The rules text without the groups named `names` (each from its `  - name:` line,
    with the comment lines right above it, to the next group or the end)."""
    lines = text.splitlines(keepends=True)
    kept, skipping = [], False
    for index, line in enumerate(lines):
        if line.startswith("  - name: "):
            skipping = line[len("  - name: "):].strip() in names
            if skipping:
                while kept and kept[-1].startswith("  #"):
                    kept.pop()
        if not skipping:
            kept.append(line)
    return "".join(kept)


def header(sources):
    names = ", ".join(sorted(str(s.relative_to(ROOT)) for s in sources))
    return (f"# GENERATED by deploy/kubernetes/generate.py from {names}.\n"
            "# Do not edit: change the source and run the script "
            "(a test fails when they differ).\n")


def indent(text, spaces):
    pad = " " * spaces
    return "".join(pad + line if line.strip() else line
                   for line in text.splitlines(keepends=True))


def without_leading_comments(text):
    """Drops the file's opening comment block (it talks about rule_files:)."""
    lines = text.splitlines(keepends=True)
    while lines and (lines[0].startswith("#") or not lines[0].strip()):
        lines.pop(0)
    return "".join(lines)


def prometheus_rules(rule_files):
    """`rule_files`: (path, text) pairs."""
    documents = []
    for path, text in rule_files:
        body = without_groups(without_leading_comments(text), NOT_ON_KUBERNETES)
        if not body.startswith("groups:"):
            sys.exit(f"{path}: expected the rules to start with 'groups:'")
        stem = path.name[: -len(".rules.yml")]
        documents.append(
            "apiVersion: monitoring.coreos.com/v1\n"
            "kind: PrometheusRule\n"
            "metadata:\n"
            f"  name: {stem}\n"
            f"  namespace: {NAMESPACE}\n"
            "  labels:\n"
            f"    app.kubernetes.io/name: {NAME}\n"
            "spec:\n" + indent(body, 2))
    return header([path for path, _ in rule_files]) + "---\n".join(documents)


def dashboard_configmap(dashboards):
    """`dashboards`: (path, text) pairs."""
    data = ""
    for path, text in dashboards:
        if "\t" in text:
            sys.exit(f"{path}: tabs cannot go into a YAML block scalar")
        # Block scalar chomping that keeps the file's trailing newlines exactly.
        chomp = "+" if text.endswith("\n\n") else "" if text.endswith("\n") else "-"
        data += f"  {path.name}: |{chomp}\n" + indent(text, 4)
        if not data.endswith("\n"):
            data += "\n"
    return (header([path for path, _ in dashboards]) +
            "apiVersion: v1\n"
            "kind: ConfigMap\n"
            "metadata:\n"
            f"  name: {NAME}-dashboards\n"
            f"  namespace: {NAMESPACE}\n"
            "  labels:\n"
            f"    app.kubernetes.io/name: {NAME}\n"
            '    grafana_dashboard: "1"\n'
            "data:\n" + data)


def replace_site_labels(text, site_labels, patterns):
    """Replaces the default site label in `patterns` ((regex, render) pairs: `render`
    gets the site labels and returns the replacement); refuses a source that no longer
    has the shape."""
    if tuple(site_labels) == DEFAULT_SITE_LABELS:
        return text
    for pattern, render in patterns:
        text, count = re.subn(pattern, lambda m: render(m, site_labels), text)
        if not count:
            sys.exit("generate.py: no %r left to put the site labels in: the sources "
                     "changed shape" % pattern)
    return text


RULE_SITE_PATTERNS = (
    # by (cluster, job, instance ...) / on (cluster, job, instance ...)
    (r"\b(by|on) \(cluster, job, instance",
     lambda m, ls: "%s (%s, job, instance" % (m.group(1), ", ".join(ls))),
    # template queries: {cluster=%q,job=%q,... with $labels.cluster $labels.job ...
    (r"\{cluster=%q,job=%q,",
     lambda m, ls: "{" + ",".join(name + "=%q" for name in ls) + ",job=%q,"),
    (r"\$labels\.cluster \$labels\.job ",
     lambda m, ls: "%s $labels.job " % " ".join("$labels." + name for name in ls)),
)
ALERTMANAGER_SITE_PATTERNS = (
    (r"\[alertname, cluster, job", lambda m, ls: "[alertname, %s, job" % ", ".join(ls)),
    (r"equal: \[cluster, job", lambda m, ls: "equal: [%s, job" % ", ".join(ls)),
    (r"equal: \[cluster, namespace", lambda m, ls: "equal: [%s, namespace" % ", ".join(ls)),
)


def add_labels(text, labels):
    """Every alert's `labels:` with `labels` ((name, value) pairs) after its severity."""
    if not labels:
        return text

    def insert(match):
        pad = match.group(1)
        return match.group(0) + "".join(
            "%s%s: %s\n" % (pad, name, json.dumps(value)) for name, value in labels)
    text, count = re.subn(r"(?m)^( +)severity: \S+\n", insert, text)
    alerts = len(re.findall(r"(?m)^ +- alert: ", text))
    if count != alerts:
        sys.exit("generate.py: %d alerts but %d severity labels: the sources changed shape"
                 % (alerts, count))
    return text


def customize_rules(text, job_regex, runbook_url, site_labels=DEFAULT_SITE_LABELS,
                    labels=()):
    """The rules with the job regex, the runbook address and the site labels
    replaced, and `labels` added to every alert."""
    promql = job_regex.replace("\\", "\\\\").replace('"', '\\"')
    text = text.replace('job=~"%s"' % DEFAULT_JOB_REGEX, 'job=~"%s"' % promql)
    text = replace_site_labels(text, site_labels, RULE_SITE_PATTERNS)
    text = add_labels(text, labels)
    if not runbook_url:
        return text
    return RULE_RUNBOOK_LINK.sub(lambda link: "runbook_url: %s#%s" % (runbook_url, link.group(1)),
                                 text)


def customize_alertmanager(text, site_labels):
    """alerts/alertmanager.yml with the site labels in every group_by and equal."""
    return replace_site_labels(text, site_labels, ALERTMANAGER_SITE_PATTERNS)


def customize_dashboard(text, job_regex, runbook_url):
    """The dashboard with its runbook links on `runbook_url` and its `job` variable
    defaulting to `job_regex`."""
    if runbook_url:
        text = text.replace(DASHBOARD_RUNBOOK_LINK, runbook_url)
    if job_regex == DEFAULT_JOB_REGEX:
        return text
    dashboard = json.loads(text)
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("name") != "job":
            continue
        variable["query"] = job_regex
        variable["current"] = {"selected": False, "text": job_regex, "value": job_regex}
        variable["options"] = [{"selected": True, "text": job_regex, "value": job_regex}]
    return json.dumps(dashboard, indent=2, ensure_ascii=False) + "\n"


def sources(job_regex=DEFAULT_JOB_REGEX, runbook_url=DEFAULT_RUNBOOK_URL,
            site_labels=DEFAULT_SITE_LABELS, labels=()):
    rules = [(path, customize_rules(path.read_text(), job_regex, runbook_url, site_labels,
                                    labels))
             for path in sorted((ROOT / "alerts").glob("*.rules.yml"))]
    dashboards = [(path, customize_dashboard(path.read_text(), job_regex, runbook_url))
                  for path in sorted((ROOT / "dashboards").glob("*.json"))]
    return rules, dashboards


def outputs(out_dir=OUT_DIR, **settings):
    rules, dashboards = sources(**settings)
    return {
        out_dir / "prometheusrule.yml": prometheus_rules(rules),
        out_dir / "dashboard-configmap.yml": dashboard_configmap(dashboards),
    }


def parse_labels(specs):
    """--label NAME=VALUE arguments as (name, value) pairs, checked."""
    labels = []
    for spec in specs or ():
        name, sep, value = spec.partition("=")
        if not sep or not LABEL_NAME.fullmatch(name) or name.startswith("__"):
            sys.exit("--label %r: want NAME=VALUE with a Prometheus label name" % spec)
        if name in RESERVED_LABELS or name in DEFAULT_SITE_LABELS:
            sys.exit("--label %r: %s is a label the rules or Alertmanager already use"
                     % (spec, name))
        if "\n" in value or not value:
            sys.exit("--label %r: the value must be one non-empty line" % spec)
        if name in dict(labels):
            sys.exit("--label: %s given twice" % name)
        labels.append((name, value))
    return tuple(labels)


def check_settings(job_regex, runbook_url, site_labels=DEFAULT_SITE_LABELS):
    try:
        re.compile(job_regex)
    except re.error as error:
        sys.exit("--job-regex %r is not a regular expression: %s" % (job_regex, error))
    if "\n" in job_regex or not job_regex:
        sys.exit("--job-regex must be one non-empty line")
    if runbook_url and not re.fullmatch(r"https?://[^\s\"'<>#\\]+", runbook_url):
        sys.exit("--runbook-url must be an http:// or https:// URL without '#', spaces or "
                 "quotes (the same rule as the exporter's --web.runbook-url)")
    for name in site_labels:
        if not LABEL_NAME.fullmatch(name) or name.startswith("__"):
            sys.exit("--site-label %r is not a Prometheus label name" % name)
        if name in RESERVED_LABELS:
            sys.exit("--site-label %r is a label of the alerts themselves" % name)
    if len(set(site_labels)) != len(site_labels):
        sys.exit("--site-label: each label once")


def write_customized(out_dir, job_regex, runbook_url, site_labels=DEFAULT_SITE_LABELS,
                     labels=()):
    site_labels = tuple(site_labels)
    check_settings(job_regex, runbook_url, site_labels)
    if set(site_labels) & set(dict(labels)):
        sys.exit("--label names a site label")
    out_dir.mkdir(parents=True, exist_ok=True)
    settings = dict(job_regex=job_regex, runbook_url=runbook_url, site_labels=site_labels,
                    labels=tuple(labels))
    rules, dashboards = sources(**settings)
    written = outputs(out_dir, **settings)
    for path, text in rules + dashboards:
        written[out_dir / path.name] = text
    alertmanager = ROOT / "alerts" / "alertmanager.yml"
    written[out_dir / alertmanager.name] = customize_alertmanager(alertmanager.read_text(),
                                                                  site_labels)
    template = ROOT / "alerts" / "skeleton-coherence.tmpl"
    written[out_dir / template.name] = template.read_text()
    for path, text in written.items():
        path.write_text(text)
    return sorted(written)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], usage=__doc__)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--job-regex", default=DEFAULT_JOB_REGEX)
    parser.add_argument("--runbook-url", default=DEFAULT_RUNBOOK_URL)
    parser.add_argument("--site-label", action="append", dest="site_labels")
    parser.add_argument("--label", action="append", dest="labels")
    args = parser.parse_args(argv[1:])
    site_labels = tuple(args.site_labels or DEFAULT_SITE_LABELS)
    labels = parse_labels(args.labels)
    if args.out:
        if args.check:
            sys.exit("--check and --out do not go together")
        for path in write_customized(args.out, args.job_regex, args.runbook_url,
                                     site_labels, labels):
            print(path)
        return 0
    if ((args.job_regex, args.runbook_url, site_labels, labels)
            != (DEFAULT_JOB_REGEX, DEFAULT_RUNBOOK_URL, DEFAULT_SITE_LABELS, ())):
        sys.exit("--job-regex, --runbook-url, --site-label and --label need --out DIR: "
                 "the checked-in files keep the defaults")
    stale = []
    for path, text in outputs().items():
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text)
    if stale:
        print("out of date: " + ", ".join(stale) +
              "; run deploy/kubernetes/generate.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
