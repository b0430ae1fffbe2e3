#!/usr/bin/env python3
"""Every PromQL expression of the dashboard and the alert rules, ready to run.

Reads dashboards/*.json and alerts/*.rules.yml in place (no second copy of any
expression lives anywhere else) and returns each expression with the Grafana template
variables replaced by values Prometheus can evaluate directly:

    $instance, $brain (and ${...} / [[...]] forms)  -> .*
    $job  -> the dashboard's own default for it (a textbox, constant or custom
             variable: `.*skeleton-coherence.*`, the job regex of the alert rules)
    $__rate_interval -> 1m    $__interval -> 15s    $__range -> 5m

Grafana's label_values(metric, label) variable queries are not PromQL; they are turned
into `count by (label) (metric)`, which returns data exactly when the variable would
have values.

Used by tests/e2e/e2e_alerting.py (and through it e2e_continuity.py). Run alone to
list the expressions:

    python3 tests/e2e/dashboard_queries.py [--source-dir DIR] [--json]
    python3 tests/e2e/dashboard_queries.py --lint   # dashboard structure only

Python 3 standard library only. The rule files are read with a small line parser, not
a YAML library: it understands `alert:`/`record:` names and `expr:` values written as
one plain or quoted line or as a `|`/`>` block, and fails loudly on anything else.
"""

import argparse
import glob
import json
import os
import re
import sys

# What each template variable becomes. Multi-value "All" selections render as the
# variables' allValue, which the dashboard sets to ".*".
VARIABLE_VALUES = {
    "instance": ".*",
    "brain": ".*",
    "runbook_instance": ".*",
    "__rate_interval": "1m",
    "__interval": "15s",
    "__range": "5m",
}

_VARIABLE_RE = re.compile(
    r"\$\{(?P<braced>\w+)(?::\w+)?\}|\[\[(?P<bracketed>\w+)(?::\w+)?\]\]|\$(?P<plain>\w+)")


class Query:
    """One expression: where it comes from, as written, and as it will be run."""

    def __init__(self, source, kind, where, raw, expr, name=None):
        self.source = source  # file path, relative to the source dir
        self.kind = kind      # "panel", "annotation", "variable", "alert", "record"
        self.where = where    # human-readable location inside the file
        self.raw = raw        # as written in the file
        self.expr = expr      # runnable PromQL
        self.name = name      # alert or recording rule name (rules only)

    def as_dict(self):
        return {"source": self.source, "kind": self.kind, "where": self.where,
                "name": self.name, "raw": self.raw, "expr": self.expr}

    def __repr__(self):
        return "Query(%s: %s)" % (self.where, self.expr)


# Dashboard variables whose value is typed in, not queried: they become their default.
VALUE_VARIABLE_TYPES = ("textbox", "constant", "custom")


def substitute(raw, where="expression", values=None):
    """Replaces the Grafana variables of `raw`; raises ValueError on an unknown one.

    `values` adds variables to VARIABLE_VALUES (a dashboard's own defaults)."""
    values = dict(VARIABLE_VALUES, **(values or {}))

    def replace(match):
        name = match.group("braced") or match.group("bracketed") or match.group("plain")
        if name not in values:
            raise ValueError("%s: unknown template variable $%s in %r" % (where, name, raw))
        return values[name]

    return _VARIABLE_RE.sub(replace, raw)


_LABEL_VALUES_RE = re.compile(r"^\s*label_values\((?P<args>.*)\)\s*$", re.S)
_QUERY_RESULT_RE = re.compile(r"^\s*query_result\((?P<query>.*)\)\s*$", re.S)


def variable_query_to_promql(query, where):
    """The PromQL that returns data exactly when a Prometheus variable query does."""
    match = _LABEL_VALUES_RE.match(query)
    if match:
        args = match.group("args")
        # The label is the last argument; the selector (with its own commas) is the rest.
        selector, comma, label = args.rpartition(",")
        label = label.strip()
        if not re.fullmatch(r"[A-Za-z_]\w*", label):
            raise ValueError("%s: cannot read the label of %r" % (where, query))
        if not comma:
            return 'count by (%s) ({%s!=""})' % (label, label)
        return "count by (%s) (%s)" % (label, selector.strip())
    match = _QUERY_RESULT_RE.match(query)
    if match:
        return match.group("query").strip()
    raise ValueError("%s: unsupported variable query %r" % (where, query))


def variable_default(variable):
    """The default value of a textbox, constant or custom variable (None if none)."""
    current = variable.get("current") or {}
    value = current.get("value")
    if isinstance(value, list):
        value = value[0] if len(value) == 1 else None
    if variable.get("type") in ("textbox", "constant"):
        value = variable.get("query") if isinstance(variable.get("query"), str) else value
    elif variable.get("type") == "custom" and not value:
        value = (variable.get("query") or "").split(",")[0].strip() or None
    return value if isinstance(value, str) and value != "" else None


def dashboard_variable_values(dashboard):
    """{name: default} of the dashboard's typed-in variables (textbox, constant, custom)."""
    values = {}
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") in VALUE_VARIABLE_TYPES:
            default = variable_default(variable)
            if default is not None:
                values[variable.get("name")] = default
    return values


def _walk(node, path):
    """Yields (path, dict) for every JSON object below `node`."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, path + [key])
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, path + [index])


def dashboard_queries(path, source_dir=None):
    """Every `expr` in the dashboard (panels, rows, annotations) and every variable."""
    with open(path, encoding="utf-8") as f:
        dashboard = json.load(f)
    source = os.path.relpath(path, source_dir) if source_dir else path
    values = dashboard_variable_values(dashboard)
    queries = []
    panels_by_path = {}
    for node_path, node in _walk(dashboard, []):
        if "gridPos" in node and "type" in node:
            panels_by_path[tuple(node_path)] = node
        expr = node.get("expr")
        if not isinstance(expr, str):
            continue
        if len(node_path) >= 2 and node_path[0] == "annotations":
            kind = "annotation"
            where = "%s annotation %r" % (source, node.get("name"))
        else:
            kind = "panel"
            panel = None
            for length in range(len(node_path), -1, -1):
                panel = panels_by_path.get(tuple(node_path[:length]))
                if panel is not None:
                    break
            title = panel.get("title") if panel else "?"
            panel_id = panel.get("id") if panel else "?"
            where = "%s panel %s %r target %s" % (source, panel_id, title, node.get("refId", "?"))
        queries.append(Query(source, kind, where, expr, substitute(expr, where, values)))
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        query = variable.get("query")
        if isinstance(query, dict):
            query = query.get("query")
        query = query or variable.get("definition")
        where = "%s variable $%s" % (source, variable.get("name"))
        if not isinstance(query, str) or not query.strip():
            raise ValueError("%s: no query" % where)
        promql = variable_query_to_promql(query, where)
        queries.append(Query(source, "variable", where, query, substitute(promql, where, values)))
    return queries


def _unquote(value, where):
    if value.startswith("'"):
        if not value.endswith("'") or len(value) < 2:
            raise ValueError("%s: unterminated quoted expr" % where)
        return value[1:-1].replace("''", "'")
    if value.startswith('"'):
        try:
            return json.loads(value)
        except ValueError as error:
            raise ValueError("%s: cannot read double-quoted expr: %s" % (where, error))
    # A plain scalar: a " #" starts a YAML comment.
    return re.split(r"\s#", value, maxsplit=1)[0].strip()


def rule_queries(path, source_dir=None):
    """The `expr` of every alerting and recording rule of one rule file."""
    source = os.path.relpath(path, source_dir) if source_dir else path
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    queries = []
    kind = name = None
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        match = re.match(r"^\s*(?:-\s+)?(alert|record):\s*(.+?)\s*$", line)
        if match:
            kind, name = match.group(1), _unquote(match.group(2), source)
            continue
        match = re.match(r"^(\s*)(?:-\s+)?expr:\s*(.*?)\s*$", line)
        if not match:
            continue
        where = "%s:%d %s %s" % (source, index, kind or "rule", name or "?")
        if name is None:
            raise ValueError("%s: expr before any alert:/record: name" % where)
        indent, value = len(match.group(1)), match.group(2)
        if re.fullmatch(r"[|>][+-]?", value):
            block = []
            while index < len(lines):
                next_line = lines[index]
                if next_line.strip() and len(next_line) - len(next_line.lstrip()) <= indent:
                    break
                block.append(next_line)
                index += 1
            expr = "\n".join(part.strip() for part in block).strip()
        elif value == "":
            raise ValueError("%s: multi-line plain expr is not supported; use a | block" % where)
        else:
            expr = _unquote(value, where)
        if not expr:
            raise ValueError("%s: empty expr" % where)
        queries.append(Query(source, kind, where, expr, substitute(expr, where), name=name))
        kind = name = None
    return queries


def default_source_dir():
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def dashboard_files(source_dir):
    return sorted(glob.glob(os.path.join(source_dir, "dashboards", "*.json")))


def rule_files(source_dir):
    return sorted(glob.glob(os.path.join(source_dir, "alerts", "*.rules.yml")))


def all_queries(source_dir=None):
    """Dashboard queries first, then rule queries, in file order."""
    source_dir = source_dir or default_source_dir()
    dashboards = dashboard_files(source_dir)
    rules = rule_files(source_dir)
    if not dashboards:
        raise ValueError("no dashboards/*.json under %s" % source_dir)
    if not rules:
        raise ValueError("no alerts/*.rules.yml under %s" % source_dir)
    queries = []
    for path in dashboards:
        queries += dashboard_queries(path, source_dir)
    for path in rules:
        queries += rule_queries(path, source_dir)
    return queries


DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}

# The job regex: the dashboard's `job` variable defaults to it, and every selector of
# the dashboard selects job=~"$job". The alert rules hard-code the same regex
# (alerts/*.rules.yml, docs/alerting.md): change them together.
JOB_REGEX = ".*skeleton-coherence.*"
JOB_MATCHER = 'job=~"$job"'

# Metric names that may appear in the dashboard; each must be followed by a selector.
_SELECTOR_METRIC_RE = re.compile(
    r"\b(skeleton_coherence[a-z0-9_]*|up|ALERTS|process_[a-z0-9_]+)\b(?!\s*[{(])")


def job_selector_problems(expr):
    """Selectors of `expr` that do not select job=~"$job" (each metric needs one)."""
    problems = []
    for selector in re.findall(r"\{[^{}]*\}", expr):
        if JOB_MATCHER not in selector:
            problems.append("selector %s without %s" % (selector, JOB_MATCHER))
    for name in _SELECTOR_METRIC_RE.findall(_without_strings(expr)):
        problems.append("metric %s without a selector (and %s)" % (name, JOB_MATCHER))
    return problems


def _without_strings(expr):
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)


def lint_dashboard(path):
    """Problems with a dashboard's structure that no Grafana is around to catch.

    Checks: uid/title/schemaVersion present, the datasource/job/instance/brain
    variables ($job typed in, defaulting to JOB_REGEX), every expression (targets,
    annotations, variable queries) selecting job=~"$job" in each selector, unique panel
    ids, panels inside the 24-column grid and not overlapping, and every panel and
    target on the `${datasource}` variable with a unique refId.
    """
    with open(path, encoding="utf-8") as f:
        dashboard = json.load(f)
    problems = []
    for key in ("uid", "title", "schemaVersion", "panels", "templating"):
        if key not in dashboard:
            problems.append("no %s" % key)
    variables = {v.get("name"): v for v in dashboard.get("templating", {}).get("list", [])}
    if variables.get("datasource", {}).get("type") != "datasource":
        problems.append("no datasource variable of type datasource")
    for name in ("instance", "brain"):
        if variables.get(name, {}).get("type") != "query":
            problems.append("no query variable $%s" % name)
    job = variables.get("job", {})
    if job.get("type") not in VALUE_VARIABLE_TYPES:
        problems.append("no textbox, constant or custom variable $job")
    elif variable_default(job) != JOB_REGEX:
        problems.append("$job defaults to %r, want %r (the alert rules' job regex)"
                        % (variable_default(job), JOB_REGEX))
    for node_path, node in _walk(dashboard, []):
        expr = node.get("expr")
        if node_path[:1] == ["templating"] and node.get("type") == "query":
            expr = node.get("query")
            expr = expr.get("query") if isinstance(expr, dict) else expr
        if isinstance(expr, str):
            for problem in job_selector_problems(expr):
                problems.append("%s: %s" % ("/".join(map(str, node_path)) or "/", problem))
    ids, cells = set(), {}
    panels = []
    for panel in dashboard.get("panels", []):
        panels.append(panel)
        panels.extend(panel.get("panels", []))  # collapsed rows
    for panel in panels:
        name = "panel %s %r" % (panel.get("id"), panel.get("title"))
        if panel.get("id") in ids:
            problems.append("%s: duplicate id" % name)
        ids.add(panel.get("id"))
        grid = panel.get("gridPos", {})
        x, y, w, h = (grid.get(k) for k in ("x", "y", "w", "h"))
        if None in (x, y, w, h) or x < 0 or w <= 0 or h <= 0 or x + w > 24:
            problems.append("%s: bad gridPos %s" % (name, grid))
            continue
        for cx in range(x, x + w):
            for cy in range(y, y + h):
                if (cx, cy) in cells:
                    problems.append("%s overlaps %s" % (name, cells[(cx, cy)]))
                    break
                cells[(cx, cy)] = name
            else:
                continue
            break
        if panel.get("type") == "row":
            continue
        if panel.get("datasource") != DATASOURCE:
            problems.append("%s: datasource %s, want %s"
                            % (name, panel.get("datasource"), DATASOURCE))
        targets = panel.get("targets", [])
        if not targets:
            problems.append("%s: no targets" % name)
        refs = [t.get("refId") for t in targets]
        if len(set(refs)) != len(refs):
            problems.append("%s: duplicate refIds %s" % (name, refs))
        for target in targets:
            if target.get("datasource") != DATASOURCE:
                problems.append("%s target %s: datasource %s"
                                % (name, target.get("refId"), target.get("datasource")))
            if not str(target.get("expr", "")).strip():
                problems.append("%s target %s: no expr" % (name, target.get("refId")))
    return problems


# Metric names of this exporter referenced by an expression (for contract checks).
_METRIC_NAME_RE = re.compile(r"\b(skeleton_coherence[a-z0-9_]*)\b")


def metric_names(expr):
    return sorted(set(_METRIC_NAME_RE.findall(expr)))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source-dir", default=default_source_dir())
    parser.add_argument("--json", action="store_true", help="print a JSON array")
    parser.add_argument("--lint", action="store_true",
                        help="check the dashboards' structure instead of listing queries")
    args = parser.parse_args(argv)
    if args.lint:
        failed = False
        for path in dashboard_files(args.source_dir):
            for problem in lint_dashboard(path):
                print("%s: %s" % (path, problem), file=sys.stderr)
                failed = True
        return 1 if failed else 0
    try:
        queries = all_queries(args.source_dir)
    except ValueError as error:
        print("dashboard_queries: %s" % error, file=sys.stderr)
        return 1
    if args.json:
        json.dump([q.as_dict() for q in queries], sys.stdout, indent=2)
        print()
    else:
        for query in queries:
            print("# %s" % query.where)
            print(query.expr)
            print()
        print("# %d expressions" % len(queries))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
