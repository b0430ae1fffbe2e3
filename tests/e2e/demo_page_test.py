#!/usr/bin/env python3
"""scripts/demo_page.py end to end: it must print a FIRING notification for brain m1nd
with both slugs (expected m1nd, found keyvault), then a RESOLVED one, stop every
process it started (no PID it printed is left) and exit 0. When the page's runbook
link is the demo's own exporter (http://127.0.0.1:PORT/...), the demo must have found
that it answers 200; any other link (a placeholder) is only reported by the demo.

Usage: demo_page_test.py --exporter build/bin/skeleton-coherence-exporter SOURCE_DIR
Exit status: 0 pass, 1 fail, 77 skipped (prometheus or alertmanager not installed).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from missing_tool import missing_tool  # noqa: E402  (tests/missing_tool.py)

NAME = "demo_page_test"


def block(output, status):
    """The lines of the first `status` notification block the demo printed."""
    match = re.search(r"^=== %s notification.*?(?=^===|^demo-page: )" % status, output,
                      re.M | re.S)
    return match.group(0) if match else ""


def problems(output, returncode):
    found = []
    if returncode != 0:
        found.append("exit status %d, want 0" % returncode)
    firing, resolved = block(output, "FIRING"), block(output, "RESOLVED")
    for status, text in (("FIRING", firing), ("RESOLVED", resolved)):
        for want in ("alertname:     SkeletonCoherenceMismatch", "brain:         m1nd",
                     "expected_slug: m1nd", "found_slug:    keyvault"):
            if want not in text:
                found.append("no %r in the %s notification" % (want, status))
    exporter = re.search(r"started exporter \(pid \d+\): .*--web.listen-address=(\S+)", output)
    link = re.search(r"runbook_url:\s+(\S+)", firing)
    if exporter and link and "://%s/" % exporter.group(1) in link.group(1):
        if "runbook link answers 200" not in firing:
            found.append("the runbook link %s is the exporter's but was not found to answer 200"
                         % link.group(1))
    pids = [int(p) for p in re.findall(r"started \S+ \(pid (\d+)\)", output)]
    if len(pids) != 3:
        found.append("want 3 processes started (exporter, alertmanager, prometheus), saw %d"
                     % len(pids))
    for pid in pids:
        if os.path.exists("/proc/%d" % pid):
            found.append("pid %d still exists after the demo" % pid)
    if "still running: none" not in output:
        found.append("the demo did not report every process stopped")
    return found


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exporter", required=True)
    parser.add_argument("source_dir")
    args = parser.parse_args(argv)
    if not shutil.which("prometheus") or not shutil.which("prometheus-alertmanager"):
        return missing_tool(NAME, "prometheus or alertmanager not installed")
    demo = subprocess.run([sys.executable, os.path.join(args.source_dir, "scripts",
                                                        "demo_page.py"),
                           "--exporter", args.exporter],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=150)
    output = demo.stdout.decode("utf-8", "replace")
    print(output)
    found = problems(output, demo.returncode)
    if found:
        print("%s: FAIL:\n  %s" % (NAME, "\n  ".join(found)))
        return 1
    print("%s: PASS" % NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
