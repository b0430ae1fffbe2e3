#!/usr/bin/env python3
"""The landing page in a real browser, as an on-call engineer sees it at 3 a.m.

Forty healthy brains, one brain serving a foreign skeleton ("zeta", whose name sorts
last among the short names) and a few with the long labels and paths of a real fleet
(a mismatch whose brain label, slugs and paths run to a hundred characters and more, an
unreadable store, a brain without one) live in a temporary m1nd layout. The real
exporter serves them; Debian's chromium, headless, at 1280 x 900, loads `/`:
  1. --dump-dom: from the DOM as rendered (scripts run), the banner is red and names
     both mismatches, their rows come first, zeta's shows both slugs, the verdict's
     reason, since when and a runbook link; the age script has run.
  2. over the DevTools protocol (--remote-debugging-pipe), at 1280 px (a desktop), at
     390 px (a phone, mobile emulation, where the table turns into a block per brain)
     and at 1100 px (where the long names do not fit as a table: the page's script
     turns it into blocks too):
     the document is no wider than the viewport (no sideways scrolling), and every
     line break inside a brain name, slug, reason or path falls at a space or after a
     `_`, `-` or `/`, never inside a word; the long names must wrap at 390 px. A
     screenshot of each width is saved under the output dir (landing-page-1280.png,
     landing-page-390.png). Before that, and on `/runbook` after, the page's inline
     style (and on `/`, its script) must have applied under the Content-Security-Policy
     the exporter sends by default (hashes of exactly those elements).
  3. --screenshot: saved under the output dir (landing-page.png); the pixel in the
     banner is red.

Usage (normally through CTest: `ctest -R landing_page_browser`):
  landing_page_browser.py --exporter build/bin/skeleton-coherence-exporter --output-dir build

Exit status: 0 pass, 1 fail, 77 skipped (chromium not installed).
Python 3 standard library only.
"""

import argparse
import base64
import fcntl
import html.parser
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from missing_tool import missing_tool  # noqa: E402  (tests/missing_tool.py)
OK_BRAINS = 40
INCIDENT = "zeta"
# The long labels of a real fleet: a brain label, its slug and its paths of 70 to 150
# characters without a space to break at.
LONG = "payments-reconciliation-service-eu-west-1-canary-blue-green-2026-12-03"
LONG_INCIDENT = "zz-" + LONG
LONG_FOREIGN_SLUG = "keyvault_" + LONG.replace("-", "_") + "_shadow_copy"
LONG_TORN = "zz-torn-" + LONG
LONG_ABSENT = "zz-absent-" + LONG
INCIDENTS = [INCIDENT, LONG_INCIDENT]  # in the order of the page: by name
BROWSER_TIMEOUT = 60  # seconds, per chromium run
START_TIMEOUT = 20
WINDOW = (1280, 900)
# (width, height, mobile, the brains' display) of the layouts checked over DevTools: a
# desktop (a table), a phone (a block per brain, by the page's CSS below 960 px), and a
# width where this fleet's names do not fit as a table (a block, by the page's script).
VIEWPORTS = [(1280, 900, False, "table"), (390, 844, True, "block"),
             (1100, 900, False, "block")]
# The cells and names of values from disk, which may wrap only at a space or a separator.
WRAPPED = "td.brain, td.slug, td.reason, td.path, #banner .name"
SEPARATORS = "_-/"
# Times ("2026-12-04 23:08:47 UTC"), which may wrap only at a space.
TIMES = "td.since time"
# Every line break inside the WRAPPED elements, as "the character before|the one after":
# a character whose box starts lower than the previous one's starts a new line.
BREAKS_SCRIPT = r"""JSON.stringify(Array.from(document.querySelectorAll(SELECTOR)).map(function(e) {
  var walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT), range = document.createRange();
  var breaks = [], top = null, previous = '', node;
  while ((node = walker.nextNode())) {
    for (var i = 0; i < node.data.length; i++) {
      var c = node.data[i];
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      var box = range.getClientRects()[0];
      if (!box || (/\s/.test(c) && box.width === 0)) {
        if (/\s/.test(c)) previous = c;
        continue;
      }
      if (top !== null && box.top > top + box.height / 2) breaks.push(previous + '|' + c);
      top = box.top;
      previous = c;
    }
  }
  return {text: e.textContent, breaks: breaks};
}))"""


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def store_json(slug):
    blocks = ",".join('{"block_id": "sb_%s_part%d_0a1b2c3d"}' % (slug, i) for i in range(2))
    return ('{"schema": "m1nd-system-block-store-v0", "store_version": 3, '
            '"skeleton": {"skeleton_id": "sk_%s_candidate"}, "blocks": [%s], '
            '"unmapped_policy": {"visible": true, '
            '"default_action": "leave_unmapped_until_ratified"}}'
            % (slug, blocks))


def make_layout(root):
    """40 ok brains, the incidents, a torn store and a brain without one; returns the
    config file's path."""
    brains = ["brain%02d" % i for i in range(OK_BRAINS)] + [INCIDENT]
    lines = ["m1nd_registries: []", "brains:"]
    for name in brains:
        runtime_dir = os.path.join(root, "rt", name)
        os.makedirs(runtime_dir)
        served = "keyvault" if name == INCIDENT else name
        with open(os.path.join(runtime_dir, "system_blocks.json"), "w") as out:
            out.write(store_json(served))
        lines += ["  - project_root: /home/dev/" + name, "    runtime_dir: " + runtime_dir]
    deep = os.path.join(root, "rt", "home-dev-src-github.com-example-org", LONG, "runtime")
    for name, store in [(LONG_INCIDENT, store_json(LONG_FOREIGN_SLUG)),
                        (LONG_TORN, '{"schema": "m1nd-system-block-store-v0", "sto'),
                        (LONG_ABSENT, None)]:
        runtime_dir = os.path.join(deep, name)
        os.makedirs(runtime_dir)
        if store is not None:
            with open(os.path.join(runtime_dir, "system_blocks.json"), "w") as out:
                out.write(store)
        lines += ["  - name: " + name,
                  "    project_root: /home/dev/src/github.com/example-org/" + name,
                  "    runtime_dir: " + runtime_dir]
    config = os.path.join(root, "config.yml")
    with open(config, "w") as out:
        out.write("\n".join(lines) + "\n")
    return config


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_ready(base):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/-/ready", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    fail("exporter not ready within %d s" % START_TIMEOUT)


def chromium_command(binary, profile, *args):
    return [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--hide-scrollbars",
            "--user-data-dir=" + profile, "--window-size=%d,%d" % WINDOW] + list(args)


def chromium(binary, profile, *args):
    command = chromium_command(binary, profile, *args)
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=BROWSER_TIMEOUT,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        fail("chromium did not finish within %d s" % BROWSER_TIMEOUT)
    if run.returncode != 0:
        fail("chromium exited %d: %s" % (run.returncode, run.stderr[-2000:]))
    return run.stdout


class DevTools:
    """Chromium driven over --remote-debugging-pipe: NUL-terminated JSON messages, the
    commands on the browser's fd 3, its answers and events on its fd 4."""

    def __init__(self, binary, profile, url):
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()

        def on_fds_3_and_4():  # in the child, before exec
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_read, answers_write)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self._proc = subprocess.Popen(
            chromium_command(binary, profile, "--remote-debugging-pipe", url),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=on_fds_3_and_4)
        os.close(commands_read)
        os.close(answers_write)
        self._buffer = b""
        self._next_id = 0
        self._deadline = time.monotonic() + BROWSER_TIMEOUT

    def call(self, method, session=None, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    fail("DevTools %s: %s" % (method, answer["error"]))
                return answer.get("result", {})

    def _read(self):
        while b"\0" not in self._buffer:
            if time.monotonic() > self._deadline:
                fail("chromium did not answer within %d s" % BROWSER_TIMEOUT)
            chunk = os.read(self._answers, 65536)
            if not chunk:
                fail("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def evaluate(self, session, expression):
        result = self.call("Runtime.evaluate", session, expression=expression,
                           returnByValue=True)
        return result.get("result", {}).get("value")

    def close(self):
        self._next_id += 1
        try:  # chromium may exit before it answers
            os.write(self._commands, json.dumps({"id": self._next_id,
                                                 "method": "Browser.close"}).encode() + b"\0")
        except OSError:
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._commands)
        os.close(self._answers)


def wait_for(browser, session, expression, expected):
    deadline = time.monotonic() + BROWSER_TIMEOUT
    while browser.evaluate(session, expression) != expected:
        if time.monotonic() > deadline:
            fail("%s never became %r" % (expression, expected))
        time.sleep(0.1)


def mid_word(pair):
    """True for a line break between two characters of a word."""
    before, after = pair.split("|", 1)
    return not (before.isspace() or before in SEPARATORS or after.isspace())


def check_viewport(browser, session, width, height, mobile, layout, output_dir):
    """At `width`: no sideways scrolling, names wrapped at word breaks only."""
    browser.call("Emulation.setDeviceMetricsOverride", session, width=width, height=height,
                 deviceScaleFactor=1, mobile=mobile)
    wait_for(browser, session, "window.innerWidth", width)
    sizes = json.loads(browser.evaluate(
        session, "JSON.stringify({client: document.documentElement.clientWidth, "
        "document: document.documentElement.scrollWidth, "
        "table: document.getElementById('brains').scrollWidth, "
        "layout: getComputedStyle(document.getElementById('brains')).display})"))
    print("width at %d px: %s" % (width, sizes))
    if sizes["client"] != width:
        fail("the layout viewport is %d px wide, not %d" % (sizes["client"], width))
    if sizes["document"] > width:
        fail("the page scrolls sideways at %d px: the document is %d px wide"
             % (width, sizes["document"]))
    if sizes["layout"] != layout:
        fail("at %d px the brains are a %s, not a %s" % (width, sizes["layout"], layout))
    wrapped = json.loads(browser.evaluate(
        session, BREAKS_SCRIPT.replace("SELECTOR", json.dumps(WRAPPED))))
    broken = [(w["text"], pair) for w in wrapped for pair in w["breaks"] if mid_word(pair)]
    lines = sum(len(w["breaks"]) for w in wrapped)
    print("breaks at %d px: %d in %d of %d values, e.g. %s" % (
        width, lines, sum(1 for w in wrapped if w["breaks"]), len(wrapped),
        [w["breaks"] for w in wrapped if LONG_INCIDENT in w["text"]][:1]))
    if broken:
        fail("at %d px, %d breaks inside a word, first: %r" % (width, len(broken), broken[:3]))
    times = json.loads(browser.evaluate(
        session, BREAKS_SCRIPT.replace("SELECTOR", json.dumps(TIMES))))
    broken = [(t["text"], pair) for t in times for pair in t["breaks"]
              if not any(c.isspace() for c in pair.split("|", 1))]
    print("times at %d px: %s" % (width, [t["breaks"] for t in times]))
    if len(times) != len(INCIDENTS) or broken:
        fail("at %d px, %d times, breaks outside a space: %r" % (width, len(times), broken[:3]))
    long_name = [w for w in wrapped if w["text"] == LONG_INCIDENT]
    if layout == "block" and not (long_name and long_name[0]["breaks"]):
        fail("at %d px the long brain name did not wrap: the check saw no break" % width)
    shot = browser.call("Page.captureScreenshot", session, format="png")["data"]
    path = os.path.join(os.path.abspath(output_dir), "landing-page-%d.png" % width)
    with open(path, "wb") as out:
        out.write(base64.b64decode(shot))
    print("screenshot: %s" % path)


def check_layouts(binary, profile, url, output_dir):
    """The page, loaded once, at each of VIEWPORTS."""
    browser = DevTools(binary, profile, url)
    try:
        pages = [t for t in browser.call("Target.getTargets")["targetInfos"]
                 if t["type"] == "page"]
        if not pages:
            fail("chromium opened no page")
        session = browser.call("Target.attachToTarget", targetId=pages[0]["targetId"],
                               flatten=True)["sessionId"]
        wait_for(browser, session, "document.readyState + ' ' + "
                 "document.querySelectorAll('tr[data-brain]').length",
                 "complete %d" % (OK_BRAINS + 1 + 3))
        check_policy_allows_page(browser, session, "/", SCRIPT_AND_STYLE_APPLIED)
        for width, height, mobile, layout in VIEWPORTS:
            check_viewport(browser, session, width, height, mobile, layout, output_dir)
        browser.call("Page.navigate", session, url=url.rstrip("/") + "/runbook")
        wait_for(browser, session, "location.pathname + ' ' + document.readyState",
                 "/runbook complete")
        check_policy_allows_page(browser, session, "/runbook", STYLE_APPLIED)
    finally:
        browser.close()


# Under the page's own Content-Security-Policy (the exporter's default), its inline
# style and script must apply: a blocked <style> has no sheet, a blocked <script>
# defines nothing.
STYLE_APPLIED = "document.querySelector('style').sheet !== null"
SCRIPT_AND_STYLE_APPLIED = STYLE_APPLIED + " && typeof scxFit === 'function'"


def check_policy_allows_page(browser, session, path, expression):
    if browser.evaluate(session, expression) is not True:
        fail("%s: its inline style or script was blocked by its Content-Security-Policy (%s)"
             % (path, expression))
    print("%s: inline style%s applied under its Content-Security-Policy"
          % (path, " and script" if "scxFit" in expression else ""))


class PageParser(html.parser.HTMLParser):
    """Collects the banner (classes, text) and the table rows (data-brain, cells)."""

    def __init__(self):
        super().__init__()
        self.banner_class = None
        self.banner_text = ""
        self.headline = ""
        self._in_headline = False
        self.rows = []  # [{"brain", "class", "cells": [...], "links": [...]}]
        self.ages = []
        self._banner_depth = 0
        self._cell = None
        self._age = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self._banner_depth:
            self._banner_depth += 1 if tag == "div" else 0
            self._in_headline = tag == "div" and attrs.get("class") == "headline" or (
                self._in_headline and tag != "div")
        elif tag == "div" and attrs.get("id") == "banner":
            self.banner_class = attrs.get("class", "")
            self._banner_depth = 1
        if tag == "tr" and "data-brain" in attrs:
            self.rows.append({"brain": attrs["data-brain"], "class": attrs.get("class", ""),
                              "cells": [], "links": []})
        elif tag == "td" and self.rows:
            self._cell = ""
        elif tag == "a" and self._cell is not None:
            self.rows[-1]["links"].append(attrs.get("href", ""))
        if "data-unix" in attrs:
            self._age = ""

    def handle_endtag(self, tag):
        if self._banner_depth and tag == "div":
            self._banner_depth -= 1
            self._in_headline = False
        if tag == "td" and self._cell is not None:
            self.rows[-1]["cells"].append(self._cell.strip())
            self._cell = None
        if tag == "span" and self._age is not None:
            self.ages.append(self._age)
            self._age = None

    def handle_data(self, data):
        if self._banner_depth:
            self.banner_text += data
        if self._in_headline:
            self.headline += data
        if self._cell is not None:
            self._cell += data
        if self._age is not None:
            self._age += data


def png_pixel(path, x, y):
    """(r, g, b) of one pixel of an 8-bit RGB or RGBA PNG, without any library."""
    with open(path, "rb") as png:
        data = png.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    offset, idat, header = 8, b"", None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    width, height, depth, color = header[:4]
    if depth != 8 or color not in (2, 6):
        fail("unexpected PNG format: depth %d, colour type %d" % (depth, color))
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    for row in range(y + 1):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else upper_left
                line[i] = (line[i] + pred) & 0xFF
        previous = line
    return tuple(previous[x * channels:x * channels + 3])


def check_dom(dom):
    page = PageParser()
    page.feed(dom)
    print("banner: [%s] %s | %s" % (page.banner_class, page.headline.strip(),
                                    " ".join(page.banner_text.split())))
    if page.banner_class is None or "red" not in page.banner_class.split():
        fail("banner is not red: %r" % page.banner_class)
    if page.headline.strip() != "2 brains serve a foreign skeleton: " + ", ".join(INCIDENTS):
        fail("banner does not name %s: %r" % (INCIDENTS, page.headline))
    if len(page.rows) != OK_BRAINS + 1 + 3:
        fail("expected %d rows, got %d" % (OK_BRAINS + 1 + 3, len(page.rows)))
    first = page.rows[0]
    print("first row: %s [%s] %s" % (first["brain"], first["class"], first["cells"][:7]))
    if [row["brain"] for row in page.rows[:2]] != INCIDENTS or any(
            "mismatch" not in row["class"].split() for row in page.rows[:2]):
        fail("the mismatches are not the first rows: %r" % page.rows[:2])
    if first["cells"][2:4] != [INCIDENT, "keyvault"]:
        fail("the row does not show both slugs: %r" % first["cells"])
    if "UTC" not in first["cells"][4] or "ago" not in first["cells"][4]:
        fail("the row does not say since when: %r" % first["cells"][4])
    if "/runbook#skeletoncoherencemismatch" not in first["links"]:  # the served runbook
        fail("the row has no runbook link: %r" % first["links"])
    if '"sk_keyvault_candidate"' not in first["cells"][6]:
        fail("the row does not give the verdict's reason: %r" % first["cells"][6])
    if any("mismatch" in row["class"] for row in page.rows[2:]):
        fail("another row is a mismatch")
    names = [row["brain"] for row in page.rows if row["class"] == "ok"]
    if len(names) != OK_BRAINS or names != sorted(names):
        fail("the ok brains are not ordered by name")
    if not page.ages or not all(age.endswith("s") or age.endswith("m") or age.endswith("h")
                                for age in page.ages):
        fail("ages not rendered: %r" % page.ages)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exporter", required=True)
    parser.add_argument("--output-dir", required=True)
    args = parser.parse_args()
    browser = shutil.which("chromium")
    if browser is None:
        return missing_tool("landing_page_browser", "chromium not installed")

    with tempfile.TemporaryDirectory(prefix="scx-browser-") as root:
        config = make_layout(root)
        port = free_port()
        base = "http://127.0.0.1:%d" % port
        log = open(os.path.join(root, "exporter.log"), "w")
        exporter = subprocess.Popen(
            [args.exporter, "--config.file=" + config, "--web.listen-address=127.0.0.1:%d" % port,
             "--scan.interval=1h"], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        try:
            wait_ready(base)
            started = time.monotonic()
            dom = chromium(browser, os.path.join(root, "profile-dom"), "--dump-dom", base + "/")
            print("dump-dom: %.1f s" % (time.monotonic() - started))
            check_dom(dom)
            started = time.monotonic()
            check_layouts(browser, os.path.join(root, "profile-width"), base + "/",
                          args.output_dir)
            print("layouts: %.1f s" % (time.monotonic() - started))

            screenshot = os.path.join(os.path.abspath(args.output_dir), "landing-page.png")
            if os.path.exists(screenshot):
                os.remove(screenshot)
            chromium(browser, os.path.join(root, "profile-shot"), "--screenshot=" + screenshot,
                     base + "/")
            if not os.path.exists(screenshot):
                fail("no screenshot written")
            pixel = png_pixel(screenshot, 40, 30)
            print("screenshot: %s, banner pixel %s" % (screenshot, pixel))
            red, green, blue = pixel
            if not (red > 150 and green < 90 and blue < 90):
                fail("the banner is not red in the screenshot: %s" % (pixel,))
        finally:
            exporter.send_signal(signal.SIGTERM)
            try:
                exporter.wait(timeout=10)
            except subprocess.TimeoutExpired:
                exporter.kill()
                exporter.wait()
            log.close()
    print("landing page: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
