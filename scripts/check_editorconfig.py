#!/usr/bin/env python3
"""Checks that the committed files follow the root .editorconfig.

For each file `git ls-files` lists (every file under ROOT but build folders, .git and
.deps when ROOT is not a git checkout), the sections of ROOT/.editorconfig that match
it are applied in order, as an editor would, and these properties are checked:

  charset = utf-8                   the file decodes as UTF-8
  end_of_line = lf                  no carriage return
  insert_final_newline = true       a file that is not empty ends with a newline
  trim_trailing_whitespace = true   no line ends with a space or a tab
  trim_trailing_whitespace = false  (Markdown) only a hard line break, two or more spaces
                                    after text, may end a line with whitespace
  indent_style = space | tab        no tab, or no space, in a line's indentation

indent_size and max_line_length are for editors; clang-format and flake8 check them
for C++ and Python. A file holding a NUL byte is binary and not checked. Only the
root .editorconfig is read: the tree has no other.

  scripts/check_editorconfig.py [ROOT]   check the tree at ROOT (default: this checkout)
  scripts/check_editorconfig.py --self-test
                                         plant each kind of breach in a small fake tree
                                         in a temporary folder and check it is caught

Exit status 0 when every file keeps the rules, 1 with one line per breach otherwise.
"""

import os
import re
import subprocess
import sys
import tempfile

SKIPPED_DIRS = {".git", ".deps", "__pycache__"}


def glob_regex(glob):
    """The regex of an EditorConfig section name, matched against a path from ROOT."""
    out, i, depth = [], 0, 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = glob.find("]", i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = glob[i + 1:end]
                out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
                i = end
        elif c == "{":
            out.append("(?:")
            depth += 1
        elif c == "}" and depth:
            out.append(")")
            depth -= 1
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < len(glob):
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    pattern = "".join(out)
    # A name without a slash matches at any depth; one with a slash from ROOT.
    if "/" not in glob:
        return re.compile("(?:.*/)?" + pattern + r"\Z")
    return re.compile((pattern[1:] if pattern.startswith("/") else pattern) + r"\Z")


def read_sections(path):
    """[(regex, {property: value})] of an .editorconfig, in file order."""
    sections = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("[") and line.endswith("]"):
                sections.append((glob_regex(line[1:-1]), {}))
            elif "=" in line:
                key, value = (part.strip() for part in line.split("=", 1))
                if sections:  # preamble keys (root = true) apply to no file
                    sections[-1][1][key.lower()] = value.lower()
            else:
                raise ValueError("%s:%d: not a section or a property: %s" % (path, number, line))
    return sections


def properties(sections, relpath):
    found = {}
    for regex, props in sections:
        if regex.match(relpath):
            found.update(props)
    return {key: value for key, value in found.items() if value != "unset"}


def committed_files(root):
    if os.path.isdir(os.path.join(root, ".git")) or os.path.isfile(os.path.join(root, ".git")):
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                                check=True).stdout.decode("utf-8", "surrogateescape")
        return sorted(path for path in listed.split("\0")
                      if path and os.path.isfile(os.path.join(root, path)))
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("build"))
        for name in sorted(files):
            found.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return found


def check_file(path, data, props):
    """One 'path:line: what' string per breach of props in data (bytes)."""
    if b"\0" in data:
        return []
    breaches = []
    if props.get("charset") == "utf-8":
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            return ["%s: not UTF-8 (byte %d)" % (path, error.start)]
    if props.get("end_of_line") == "lf" and b"\r" in data:
        line = data[:data.index(b"\r")].count(b"\n") + 1
        breaches.append("%s:%d: carriage return (end_of_line = lf)" % (path, line))
    if props.get("insert_final_newline") == "true" and data and not data.endswith(b"\n"):
        breaches.append("%s: no newline at the end (insert_final_newline = true)" % path)
    trim = props.get("trim_trailing_whitespace")
    style = props.get("indent_style")
    for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
        line = line.rstrip("\r")
        stripped = line.rstrip(" \t")
        if stripped != line:
            tail = line[len(stripped):]
            hard_break = stripped and len(tail) >= 2 and "\t" not in tail
            if trim == "true" or (trim == "false" and not hard_break):
                breaches.append("%s:%d: trailing whitespace" % (path, number))
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        if style == "space" and "\t" in indent:
            breaches.append("%s:%d: tab in the indentation (indent_style = space)"
                            % (path, number))
        elif style == "tab" and indent.startswith(" "):
            breaches.append("%s:%d: spaces in the indentation (indent_style = tab)"
                            % (path, number))
    return breaches


def check_tree(root):
    sections = read_sections(os.path.join(root, ".editorconfig"))
    breaches = []
    for path in committed_files(root):
        with open(os.path.join(root, path), "rb") as f:
            data = f.read()
        breaches += check_file(path, data, properties(sections, path))
    return breaches


def self_test():
    config = ("root = true\n[*]\ncharset = utf-8\nend_of_line = lf\n"
              "insert_final_newline = true\ntrim_trailing_whitespace = true\n"
              "indent_style = space\n[*.md]\ntrim_trailing_whitespace = false\n"
              "[{Makefile,*.mk}]\nindent_style = tab\n[corpus/**]\ncharset = unset\n"
              "insert_final_newline = unset\ntrim_trailing_whitespace = unset\n")
    cases = {  # path: (content, the breach expected, or None)
        "ok.sh": (b"if true; then\n  echo ok\nfi\n", None),
        "a/deep/ok.cc": (b"int main() {\n  return 0;\n}\n", None),
        "trailing.cc": (b"int x; \n", "trailing.cc:1: trailing whitespace"),
        "no_newline.py": (b"x = 1", "no_newline.py: no newline at the end"),
        "crlf.yml": (b"a: 1\r\n", "crlf.yml:1: carriage return"),
        "tab.sh": (b"f() {\n\techo\n}\n", "tab.sh:2: tab in the indentation"),
        "latin1.txt": (b"caf\xe9\n", "latin1.txt: not UTF-8"),
        "hard_break.md": (b"line one  \nline two\n", None),
        "lone_space.md": (b"text \n", "lone_space.md:1: trailing whitespace"),
        "sub/Makefile": (b"all:\n\ttrue\n", None),
        "spaces.mk": (b"all:\n    true\n", "spaces.mk:2: spaces in the indentation"),
        "corpus/torn.json": (b'{"a": "b" ', None),
        "corpus/bad.json": (b"\xff\xfe{} \n", None),
        "other/corpus/torn.json": (b"{", "other/corpus/torn.json: no newline at the end"),
        "binary.bin": (b"\x00\x01 \r", None),
    }
    failures = []
    with tempfile.TemporaryDirectory(prefix="scx-editorconfig-") as root:
        with open(os.path.join(root, ".editorconfig"), "w") as f:
            f.write(config)
        for path, (content, _) in cases.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "wb") as f:
                f.write(content)
        breaches = check_tree(root)
    for path, (_, expected) in cases.items():
        found = [b for b in breaches if b.startswith(path + ":")]
        if expected is None and found:
            failures.append("%s: unexpected %s" % (path, found))
        elif expected is not None and not any(b.startswith(expected) for b in found):
            failures.append("%s: want %r, got %s" % (path, expected, found))
    for failure in failures:
        print("check_editorconfig self-test: FAIL: " + failure)
    if not failures:
        print("check_editorconfig self-test: PASS: %d cases" % len(cases))
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))
    breaches = check_tree(root)
    for breach in breaches:
        print(breach)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
