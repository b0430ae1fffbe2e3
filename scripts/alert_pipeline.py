"""Runs the alerting path on loopback: exporter -> Prometheus -> Alertmanager -> webhook.

The pieces that tests/e2e/e2e_alerting.py (and through it e2e_continuity.py) and
scripts/demo_page.py share: m1nd's store written as m1nd writes it, free ports,
processes started and stopped by PID, readiness waits, a webhook receiver standing in
for the pager, the Prometheus HTTP API, and the mechanical rewrites of the shipped
rules and Alertmanager config that shorten their time windows. Python 3 standard
library only. Scripts never import from tests/; the tests import this file.
"""

import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

HTTP_TIMEOUT = 5
START_TIMEOUT = 20
STOP_GRACE = 5

# The name log lines start with; each user sets its own.
LOG_NAME = "alert_pipeline"


def log(message):
    print("%s: %s" % (LOG_NAME, message), flush=True)


class Failure(Exception):
    pass


def write_store_atomically(runtime_dir, document, mtime=None):
    """Like m1nd: write system_blocks.json.tmp, fsync, rename over the store. `mtime`
    (unix time) backdates the file, as if it had been written then."""
    path = os.path.join(runtime_dir, "system_blocks.json")
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    if mtime is not None:
        os.utime(temporary, (mtime, mtime))
    os.rename(temporary, path)


def yaml_string(text):
    return json.dumps(text)  # a JSON string is a valid YAML double-quoted scalar


def free_ports(count):
    """Distinct free TCP ports on 127.0.0.1 (bind to port 0, read, close)."""
    sockets, ports = [], []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in sockets:
            s.close()
    return ports


class Processes:
    """Processes this test started, stopped by PID in reverse order."""

    def __init__(self, log_dir):
        self.log_dir = log_dir
        self.started = []  # (name, Popen, log path)
        self.stopped = []  # the same, for processes stopped on purpose

    def start(self, name, argv):
        log_path = os.path.join(self.log_dir, name + ".log")
        log_file = open(log_path, "ab")
        try:
            process = subprocess.Popen(argv, stdout=log_file, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
        finally:
            log_file.close()
        self.started.append((name, process, log_path))
        log("started %s (pid %d): %s" % (name, process.pid, " ".join(argv)))
        return process

    def check_alive(self):
        for name, process, _ in self.started:
            code = process.poll()
            if code is not None:
                raise Failure("%s (pid %d) exited early with status %d"
                              % (name, process.pid, code))

    @staticmethod
    def _terminate(name, process):
        if process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            log("%s (pid %d) ignored SIGTERM for %ds; killing"
                % (name, process.pid, STOP_GRACE))
            process.kill()
            process.wait(timeout=STOP_GRACE)

    def stop(self, name):
        """Stops the process started as `name` (SIGTERM, then SIGKILL after a grace)."""
        for entry in self.started:
            if entry[0] == name:
                self.started.remove(entry)
                self.stopped.append(entry)
                self._terminate(entry[0], entry[1])
                log("stopped %s (pid %d, status %s)" % (name, entry[1].pid,
                                                        entry[1].returncode))
                return
        raise Failure("no running process named %s" % name)

    def stop_all(self):
        for name, process, _ in reversed(self.started):
            self._terminate(name, process)

    def dump_logs(self, lines=40):
        logs = {}
        for name, _, log_path in self.stopped + self.started:
            logs[name] = log_path
        for name, log_path in logs.items():
            try:
                with open(log_path, encoding="utf-8", errors="replace") as f:
                    tail = f.read().splitlines()[-lines:]
            except OSError:
                continue
            print("----- last %d lines of %s log -----" % (len(tail), name))
            for line in tail:
                print("  " + line)


def http_get(url, timeout=HTTP_TIMEOUT):
    """(status, body) of a GET; status 0 when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except (urllib.error.URLError, OSError):
        return 0, b""


def wait_until(what, predicate, timeout, processes, interval=0.2):
    """Polls `predicate` until it returns a truthy value; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        processes.check_alive()
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise Failure("timed out after %ss waiting for %s" % (timeout, what))
        time.sleep(interval)


def wait_ready(name, url, processes):
    wait_until("%s to be ready (%s)" % (name, url), lambda: http_get(url)[0] == 200,
               START_TIMEOUT, processes)
    log("%s is ready" % name)


class Webhook:
    """Records every JSON body POSTed to it, with its path and arrival time."""

    def __init__(self, port):
        self.lock = threading.Lock()
        self.received = []  # dicts: path, at (monotonic), payload
        webhook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                arrived = time.monotonic()
                try:
                    payload = json.loads(body)
                except ValueError:
                    payload = {"unparsable": body.decode("utf-8", "replace")}
                with webhook.lock:
                    webhook.received.append({"path": self.path, "at": arrived,
                                             "payload": payload})
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def notifications(self):
        with self.lock:
            return list(self.received)

    def alerts(self):
        """(notification, alert) for every alert of every notification so far."""
        return [(n, alert) for n in self.notifications()
                for alert in n["payload"].get("alerts", [])]


def prometheus_api(prometheus_url, path, params=None):
    url = prometheus_url + path
    data = urllib.parse.urlencode(params).encode() if params else None
    request = urllib.request.Request(url, data=data)
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        try:
            return json.loads(error.read())
        except ValueError:
            return {"status": "error", "error": "HTTP %d" % error.code}
    except (urllib.error.URLError, OSError, ValueError) as error:
        return {"status": "error", "error": str(error)}


def rewrite_rules(text, alertname, fields, window=None):
    """Sets fields (`for`, `keep_firing_for`) of one alert in a rule file's text, and
    replaces its `[20m]` range windows (expression and annotations) with `window`.
    Returns the text and how many fields and windows changed."""
    lines = text.split("\n")
    inside = False
    changed = windows = 0
    for index, line in enumerate(lines):
        match = re.match(r"^\s*-\s+(alert|record|name):\s*(\S+)", line)
        if match:
            inside = match.group(1) == "alert" and match.group(2) == alertname
            continue
        if not inside:
            continue
        match = re.match(r"^(\s*)(for|keep_firing_for)(:\s*)\S+(.*)$", line)
        if match and match.group(2) in fields:
            lines[index] = (match.group(1) + match.group(2) + match.group(3)
                            + fields[match.group(2)] + match.group(4))
            changed += 1
        if window:
            lines[index], count = re.subn(r"\[20m\]", "[%s]" % window, lines[index])
            windows += count
    return "\n".join(lines), changed, windows


def rewrite_alertmanager(text, webhook_port, group_wait_seconds=1, group_interval_seconds=1):
    """Points the webhooks at our receiver and shortens the grouping timers."""
    text, urls = re.subn(r"http://127\.0\.0\.1:9095/", "http://127.0.0.1:%d/" % webhook_port,
                         text)
    text, waits = re.subn(r"(?m)^(\s*group_wait:\s*)\S+", r"\g<1>%ds" % group_wait_seconds,
                          text)
    text, intervals = re.subn(r"(?m)^(\s*group_interval:\s*)\S+",
                              r"\g<1>%ds" % group_interval_seconds, text)
    text, repeats = re.subn(r"(?m)^(\s*repeat_interval:\s*)\S+", r"\g<1>1h", text)
    if urls < 2 or not waits or not intervals or not repeats:
        raise Failure("alerts/alertmanager.yml changed shape: rewrote %d webhook URLs "
                      "(want both receivers on 127.0.0.1:9095), %d group_wait, "
                      "%d group_interval, %d repeat_interval" % (urls, waits, intervals,
                                                                 repeats))
    return text


def find_tool(explicit, names):
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None
