#!/usr/bin/env python3
"""Checks the include rules between the layers of the tree.

One include root (the repository) lets any file include any header, so the layering
of docs/architecture.md is kept by this check, a ctest test (label "lint"):

  base/               includes base/ only
  engine/discovery/   base/, engine/ (its own folder included)
  engine/ (the rest)  base/, engine/, engine/discovery/
  exporter/http/      base/, exporter/http/
  exporter/render/    base/, engine/, exporter/render/
  exporter/metrics/   the exposition: any of the above and exporter/ (part of the
                      application, which includes it in turn)
  exporter/ (the rest, the application)   any of the above and exporter/

No include may close a loop: a header pair (x.h and x.cc, one module) may not reach
itself again through the modules it includes, within a layer as across them (an
internal header that includes its folder's public one, say).

Every quoted include under base/, engine/ and exporter/ must also be written from the
repository root ("base/utf8.h", not "utf8.h") and name a file of those folders, and
every header's include guard must follow its path (base/utf8.h: SCX_BASE_UTF8_H_).
System and library headers are included with <...> and are not checked here (CMake
decides which target may link civetweb, OpenSSL or zlib).

  scripts/check_includes.py [ROOT]    check the tree at ROOT (default: this checkout)
  scripts/check_includes.py --self-test
                                      plant forbidden includes in small fake trees in
                                      a temporary folder and check that each is caught

Exit status 0 when the tree keeps the rules, 1 with one line per breach otherwise.
"""

import os
import re
import sys
import tempfile

# The layers, most specific folder first: a file belongs to the first that holds it.
LAYERS = [
    ("http", "exporter/http/"),
    ("render", "exporter/render/"),
    ("metrics", "exporter/metrics/"),
    ("base", "base/"),
    ("discovery", "engine/discovery/"),
    ("engine", "engine/"),
    ("exporter", "exporter/"),
]

# What each layer may include.
ALLOWED = {
    "base": {"base"},
    "discovery": {"base", "engine", "discovery"},
    "engine": {"base", "engine", "discovery"},
    "http": {"base", "http"},
    "render": {"base", "engine", "discovery", "render"},
    "metrics": {"base", "engine", "discovery", "http", "render", "metrics", "exporter"},
    "exporter": {"base", "engine", "discovery", "http", "render", "metrics", "exporter"},
}

SOURCE_SUFFIXES = (".h", ".cc", ".h.in")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
GUARD = re.compile(r"^\s*#\s*ifndef\s+(\w+)")


def layer_of(path):
    for name, prefix in LAYERS:
        if path.startswith(prefix):
            return name
    return None


def expected_guard(path):
    stem = path[: -len(".h.in")] if path.endswith(".h.in") else path[: -len(".h")]
    return "SCX_" + re.sub(r"[^A-Za-z0-9]", "_", stem).upper() + "_H_"


def sources(root):
    """Paths (relative to root, with /) of the files the rules cover."""
    found = []
    for top in ("base", "engine", "exporter"):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    full = os.path.join(folder, name)
                    found.append(os.path.relpath(full, root).replace(os.sep, "/"))
    return found


def exists(root, included):
    # exporter/build_info.h is written at build time from exporter/build_info.h.in.
    return os.path.isfile(os.path.join(root, included)) or os.path.isfile(
        os.path.join(root, included + ".in")
    )


def module_of(path):
    """A header pair's name: the path without .h, .cc or .h.in."""
    for suffix in (".h.in", ".h", ".cc"):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def include_loops(edges):
    """One message per loop among modules: `edges` maps a module to those it includes."""
    loops = []
    reported = set()
    for start in sorted(edges):
        if start in reported:
            continue
        # The shortest way back to `start`, breadth first.
        came_from = {}
        queue = [start]
        found = None
        while queue and found is None:
            next_queue = []
            for module in queue:
                for target in sorted(edges.get(module, ())):
                    if target == start:
                        found = module
                        break
                    if target not in came_from:
                        came_from[target] = module
                        next_queue.append(target)
                if found is not None:
                    break
            queue = next_queue
        if found is None:
            continue
        loop = [found]
        while loop[-1] != start:
            loop.append(came_from[loop[-1]])
        loop.reverse()
        reported.update(loop)
        loops.append("include loop: %s -> %s" % (" -> ".join(loop), start))
    return loops


def check(root):
    """One message per breach of the rules in the tree at root."""
    problems = []
    edges = {}
    for path in sources(root):
        layer = layer_of(path)
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        for number, line in enumerate(lines, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            included = match.group(1)
            where = "%s:%d: includes \"%s\"" % (path, number, included)
            target = layer_of(included)
            if target is None or not exists(root, included):
                problems.append(
                    where + ": not a file of base/, engine/ or exporter/ written from the "
                    "repository root"
                )
            elif target not in ALLOWED[layer]:
                problems.append(
                    "%s: %s may not include %s (it may include: %s)"
                    % (where, layer, target, ", ".join(sorted(ALLOWED[layer])))
                )
            if module_of(included) != module_of(path):
                edges.setdefault(module_of(path), set()).add(module_of(included))
        if path.endswith((".h", ".h.in")):
            guard = next((m.group(1) for m in map(GUARD.match, lines) if m), None)
            if guard != expected_guard(path):
                problems.append(
                    "%s: include guard %s, expected %s" % (path, guard, expected_guard(path))
                )
    return problems + include_loops(edges)


# --- self-test -------------------------------------------------------------------

def header(path, *includes):
    guard = expected_guard(path)
    body = "".join('#include "%s"\n' % name for name in includes)
    return "#ifndef %s\n#define %s\n%s#endif  // %s\n" % (guard, guard, body, guard)


# A small tree that keeps every rule, each allowed kind of include used once.
CLEAN_TREE = {
    "base/util.h": header("base/util.h"),
    "base/util.cc": '#include "base/util.h"\n',
    "engine/model.h": header("engine/model.h", "base/util.h"),
    "engine/model.cc": '#include "engine/model.h"\n#include "engine/discovery/walk.h"\n',
    "engine/discovery/walk.h": header("engine/discovery/walk.h", "base/util.h"),
    "engine/discovery/walk.cc": '#include "engine/discovery/walk.h"\n',
    "exporter/http/server.h": header("exporter/http/server.h", "base/util.h"),
    "exporter/render/page.h": header(
        "exporter/render/page.h", "base/util.h", "engine/model.h"
    ),
    "exporter/render/page.cc": '#include "exporter/render/page.h"\n#include <zlib.h>\n',
    "exporter/build_info.h.in": header("exporter/build_info.h.in"),
    "exporter/app.h": header("exporter/app.h"),
    "exporter/main.cc": "".join(
        '#include "%s"\n' % name
        for name in (
            "exporter/app.h",
            "exporter/build_info.h",
            "exporter/http/server.h",
            "exporter/render/page.h",
            "engine/model.h",
            "base/util.h",
        )
    ),
}

# (file, line added to it, words the report must hold): each breaks one rule.
PLANTED = [
    ("base/util.cc", '#include "engine/model.h"', "base may not include engine"),
    ("base/util.cc", '#include "exporter/app.h"', "base may not include exporter"),
    ("engine/model.h", '#include "exporter/app.h"', "engine may not include exporter"),
    ("engine/model.h", '#include "exporter/render/page.h"', "engine may not include render"),
    ("exporter/render/page.cc", '#include "exporter/http/server.h"',
     "render may not include http"),
    ("exporter/render/page.cc", '#include "exporter/app.h"', "render may not include exporter"),
    ("exporter/http/server.h", '#include "exporter/render/page.h"',
     "http may not include render"),
    ("exporter/http/server.h", '#include "engine/model.h"', "http may not include engine"),
    ("exporter/http/server.h", '#include "exporter/app.h"', "http may not include exporter"),
    ("engine/discovery/walk.h", '#include "exporter/app.h"',
     "discovery may not include exporter"),
    ("engine/discovery/walk.h", '#include "exporter/render/page.h"',
     "discovery may not include render"),
    ("engine/discovery/walk.cc", '#include "engine/model.h"',
     "include loop: engine/discovery/walk -> engine/model -> engine/discovery/walk"),
    ("engine/model.h", '#include "util.h"', "written from the repository root"),
    ("engine/model.h", '#include "engine/missing.h"', "written from the repository root"),
]


def write_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def self_test():
    failures = []
    with tempfile.TemporaryDirectory(prefix="scx-include-rules-") as temp:
        clean = os.path.join(temp, "clean")
        write_tree(clean, CLEAN_TREE)
        problems = check(clean)
        if problems:
            failures.append("the clean tree was refused: " + "; ".join(problems))
        for i, (path, line, words) in enumerate(PLANTED):
            root = os.path.join(temp, "planted-%d" % i)
            files = dict(CLEAN_TREE)
            files[path] = line + "\n" + files[path]
            write_tree(root, files)
            problems = check(root)
            # An include up the layers often closes a loop too: reported beside it.
            if not problems or words not in problems[0] or any(
                module_of(path) not in problem for problem in problems
            ):
                failures.append(
                    "%s planted in %s: expected a report with \"%s\" first, got %r"
                    % (line, path, words, problems)
                )
        root = os.path.join(temp, "guard")
        files = dict(CLEAN_TREE)
        files["engine/model.h"] = files["engine/model.h"].replace(
            "SCX_ENGINE_MODEL_H_", "SCX_EXPORTER_MODEL_H_"
        )
        write_tree(root, files)
        problems = check(root)
        if len(problems) != 1 or "expected SCX_ENGINE_MODEL_H_" not in problems[0]:
            failures.append("a wrong include guard: got %r" % (problems,))
    for failure in failures:
        print("check_includes self-test: " + failure)
    if failures:
        return 1
    print("check_includes self-test: %d planted breaches caught, the clean tree passes"
          % (len(PLANTED) + 1))
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(__file__), "..")
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print("check_includes: %d include rule(s) broken; see docs/architecture.md, "
              "\"Layers\"" % len(problems))
        return 1
    print("check_includes: %d files keep the include rules" % len(sources(root)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
