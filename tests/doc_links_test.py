#!/usr/bin/env python3
"""Every relative link and #anchor in README.md and docs/*.md resolves.

A link is [text](target) or a reference definition `[label]: target`, outside code
spans and fenced code blocks. External targets (a scheme such as https: or mailto:)
are not fetched. A relative target must name a file or folder of the checkout,
relative to the page that links it; its #anchor, when the target is a Markdown file
(or the page itself, for a bare #anchor), must be the GitHub anchor of one of that
file's headings or an explicit <a id="..."> / <a name="...">.

GitHub's anchors: the heading's text as rendered (code spans' backticks, emphasis
markers, link targets and HTML tags dropped), lower-cased, every character that is
not a letter, digit, `-`, `_` or space removed, each space turned into `-`; a heading
whose anchor is already taken gets `-1`, `-2`, ...

Usage (normally through CTest, label lint: `ctest -R doc_links`):
  doc_links_test.py SOURCE_DIR     check README.md and docs/*.md
  doc_links_test.py --self-test    check the checker on planted good and broken links

Exit status: 0 every link resolves, 1 a link or anchor is broken (each one printed as
FILE:LINE: message). Python 3 standard library only.
"""

import glob
import os
import re
import sys
import tempfile

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:[^>]*\s)?(?:id|name)=\"([^\"]+)\"", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target) or [text](target "title"); the text may hold one level of brackets.
INLINE_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
                         r"\(\s*<?([^\s()<>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def strip_inline_markup(text):
    """A heading's text as GitHub renders it, before the slug is made."""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", text)  # links
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    text = text.replace("`", "")
    text = re.sub(r"(\*+)(?=\S)(.+?)(?<=\S)\1", r"\2", text)  # emphasis
    text = re.sub(r"(?<!\w)(_+)(?=\S)(.+?)(?<=\S)\1(?!\w)", r"\2", text)
    return text


def slug(heading):
    text = strip_inline_markup(heading).strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in "-_ ")
    return text.replace(" ", "-")


def markdown_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None  # the opening fence while inside a block
    with open(path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            line = line.rstrip("\n")
            match = FENCE.match(line)
            if fence is None and match:
                fence = match.group(1)
            elif fence is not None:
                closing = match and match.group(1)[0] == fence[0] and (
                    len(match.group(1)) >= len(fence)) and not line[match.end():].strip()
                if closing:
                    fence = None
            else:
                yield number, line


_ANCHORS = {}  # real path -> the anchors it defines


def anchors(path):
    """The anchors a Markdown file defines: its headings' slugs and HTML ids."""
    path = os.path.realpath(path)
    if path not in _ANCHORS:
        found, seen = set(), {}
        for _, line in markdown_lines(path):
            found.update(HTML_ANCHOR.findall(line))
            match = HEADING.match(line)
            if not match:
                continue
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else "%s-%d" % (base, count))
        _ANCHORS[path] = found
    return _ANCHORS[path]


def links(path):
    """(line number, target) of every link of a Markdown file."""
    for number, line in markdown_lines(path):
        match = REFERENCE.match(line)
        if match:
            yield number, match.group(1)
            continue
        for match in INLINE_LINK.finditer(CODE_SPAN.sub("", line)):
            yield number, match.group(1)


def check_link(page, target, root):
    """Why `target`, linked from `page`, does not resolve; None when it does."""
    if not target or SCHEME.match(target) or target.startswith("//"):
        return None
    file_part, _, anchor = target.partition("#")
    if file_part.startswith("/"):
        return "absolute path %s: link relative to the page" % target
    resolved = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) if (
        file_part) else page
    if not os.path.exists(resolved):
        return "%s: no such file" % file_part
    if not os.path.realpath(resolved).startswith(os.path.realpath(root) + os.sep):
        return "%s: outside the checkout" % file_part
    if anchor and resolved.endswith(".md"):
        if anchor not in anchors(resolved):
            return "#%s: no such heading in %s" % (anchor, os.path.relpath(resolved, root))
    return None


def pages(root):
    return [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))


def check(root):
    """Prints every broken link under `root`; returns how many there are."""
    broken, count = 0, 0
    for page in pages(root):
        for number, target in links(page):
            count += 1
            problem = check_link(page, target, root)
            if problem:
                broken += 1
                print("%s:%d: %s" % (os.path.relpath(page, root), number, problem))
    print("doc_links: %d links in %d pages, %d broken" % (count, len(pages(root)), broken))
    return broken


PLANTED_README = """\
# Title

See [the guide](docs/guide.md#the-config-file-tls) and [flags](docs/guide.md#--once),
[again](docs/guide.md#step-1), [up](#title), [site](https://example.com/#x),
[image](docs/) and [ref].

[ref]: docs/guide.md#whats-new

`[code](docs/missing.md)` is code, and so is:

```
[fenced](docs/missing.md)
```

Broken: [gone](docs/running.md#reloads), [no file](docs/missing.md),
[no anchor](docs/guide.md#reloads), [here](#nowhere), [abs](/etc/passwd).
"""

PLANTED_GUIDE = """\
# The config file (TLS)

## `--once`

## Step

## Step

## What's *new*

<a id="custom"></a>
[back](../README.md#title) [custom](#custom) [step](#step-2)
"""

# The broken links of PLANTED_README and PLANTED_GUIDE, each as FILE:LINE.
PLANTED_BROKEN = ["README.md:15", "README.md:15", "README.md:16", "README.md:16",
                  "README.md:16", "docs/guide.md:12"]


def self_test():
    """The checker finds each planted broken link and no good one."""
    with tempfile.TemporaryDirectory(prefix="doc-links-") as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "README.md"), "w") as out:
            out.write(PLANTED_README)
        with open(os.path.join(root, "docs", "guide.md"), "w") as out:
            out.write(PLANTED_GUIDE)
        found = []
        for page in pages(root):
            for number, target in links(page):
                if check_link(page, target, root):
                    found.append("%s:%d" % (os.path.relpath(page, root), number))
    if sorted(found) != sorted(PLANTED_BROKEN):
        print("doc_links self-test: FAIL: found %s, planted %s" % (found, PLANTED_BROKEN))
        return 1
    expected = {"the config file (TLS)": "the-config-file-tls", "`--once`": "--once",
                "What's *new*": "whats-new", "Foo — bar": "foo--bar",
                "[A link](x.md) here": "a-link-here", "skeleton_coherence": "skeleton_coherence"}
    for heading, want in expected.items():
        if slug(heading) != want:
            print("doc_links self-test: FAIL: slug(%r) = %r, not %r"
                  % (heading, slug(heading), want))
            return 1
    print("doc_links self-test: PASS (%d planted broken links found)" % len(PLANTED_BROKEN))
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    return 1 if check(os.path.abspath(argv[1])) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
