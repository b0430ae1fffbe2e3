"""What a test script does when a tool it needs is not installed.

On a developer's machine it skips (exit status 77, which ctest reports as skipped).
Under CI=true it fails: scripts/test.sh installs every tool the tests use, so in CI
a missing tool is a broken install, and a skip would pass a test that never ran. A
test skips only for what the machine cannot give it (root, a mount namespace).
"""

import os

SKIP = 77


def under_ci():
    return os.environ.get("CI") == "true"


def missing_tool(test, message):
    """Prints why `test` cannot run and returns its exit status: 1 under CI, else 77."""
    if under_ci():
        print("%s: FAIL: %s (CI=true: ./scripts/install-deps.sh --test installs it)"
              % (test, message))
        return 1
    print("%s: SKIP: %s" % (test, message))
    return SKIP
