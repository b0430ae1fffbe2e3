#!/usr/bin/env python3
"""The real exporter under slow readers, greedy clients and connection floods.

Each scenario starts the exporter on 127.0.0.1 (a free port), attacks it from a
child process for a few seconds while a separate scraper (source address
127.0.0.200) scrapes /metrics every 500 ms, and stops the exporter by its PID. A
scrape must answer 200 with every brain's series in under a second
(docs/security.md, "Limits under hostile clients", has the figures).

Scenarios (all run by default, about 7 s each: a 5 s attack, --seconds):
  slow             45 slow readers of plain /metrics (1 KB/s, small receive
                   window), half of them with 200 pipelined requests
  fast             50 clients looping plain /metrics as fast as they can
  slow-views       128 slow readers of /api/v1/brains and / (1 KB/s, 50 pipelined
                   requests each), 64 from 127.0.0.1 and 64 from 127.0.0.2: more
                   than the HTTP workers
  idle-one         2,000 idle connections from 127.0.0.1
  idle-many        2,000 idle connections from 127.0.0.1 .. 127.0.0.50
  keepalive-one    2,000 keep-alive connections sending GET /-/healthy every 4 s
  keepalive-many   the same from 50 addresses
  tls-one          2,000 connections sending half a TLS handshake (TLS port)
  tls-many         the same from 50 addresses
  descriptors      RLIMIT_NOFILE 1024 (prlimit) and 2,000 idle connections from
                   50 addresses while the exporter scans every second
  young            RLIMIT_NOFILE 256 and 2,000 connections from 50 addresses, each
                   closed and opened anew every 200 ms (never old enough to be
                   reclaimed by age)

The exporter's threads are counted during each attack: at most 128 (the default
workers and the rest of the process).

Attackers whose connection the server closes reconnect once a second. Usage:
  exporter_flood_attack_test.py EXPORTER [SCENARIO...] [--bound-ms N] [--seconds N]
Exit status 0 when every scrape held the bound, 1 otherwise, 77 when a scenario
cannot run here (no openssl for TLS, no prlimit).
"""

import argparse
import multiprocessing
import os
import resource
import selectors
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from missing_tool import SKIP, missing_tool  # noqa: E402  (tests/missing_tool.py)

BRAINS = 2000
SCRAPER_ADDRESS = "127.0.0.200"
FLOOD_CONNECTIONS = 2000
ATTACKER_ADDRESSES = 50
SLOW_READERS = 45
FAST_CLIENTS = 50
# The exporter's threads at most, at rest and under every attack (docs/performance.md).
MAX_THREADS = 128
HEALTHY = b"GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n"
METRICS = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
# The first bytes of a TLS record carrying a ClientHello, then nothing.
HALF_TLS = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_fixture(root):
    """BRAINS runtime dirs found by a glob, each with a manifest and a store, with
    long project roots so that the plain metrics are a few megabytes."""
    store = os.path.join(root, "store.json")
    with open(store, "w") as f:
        f.write('{"schema": "m1nd-system-block-store-v0", "store_version": 1, '
                '"skeleton": {"skeleton_id": "sk_x_candidate", "version": 1, '
                '"state": "candidate", "ratification": {"method": "", "ratifier": "", '
                '"ratified_at": "", "commit": ""}}, "blocks": [], "unmapped_policy": '
                '{"visible": true, "default_action": "leave_unmapped_until_ratified"}}\n')
    for i in range(BRAINS):
        rt = os.path.join(root, "rts", "b%05d" % i)
        os.makedirs(rt)
        os.link(store, os.path.join(rt, "system_blocks.json"))
        with open(os.path.join(rt, "project_brain.json"), "w") as f:
            f.write('{"schema": "m1nd-project-brain-v0", "project_root": '
                    '"/home/u/%s%05d", "brain_kind": "project", '
                    '"created_ms": 1767225600000}\n' % ("p" * 200, i))
    config = os.path.join(root, "config.yml")
    with open(config, "w") as f:
        f.write('m1nd_registries: []\nruntime_globs: ["%s/rts/*"]\n' % root)
    return config


def make_tls(root):
    key, crt = os.path.join(root, "server.key"), os.path.join(root, "server.crt")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                    "/CN=localhost", "-keyout", key, "-out", crt],
                   check=True, capture_output=True)
    web = os.path.join(root, "web.yml")
    with open(web, "w") as f:
        f.write("tls_server_config:\n  cert_file: %s\n  key_file: %s\n" % (crt, key))
    return web


class Exporter:
    def __init__(self, binary, config, root, extra=(), nofile=None, tls_config=None):
        self.port = free_port()
        self.tls = tls_config is not None
        args = [binary, "--config.file=" + config,
                "--web.listen-address=127.0.0.1:%d" % self.port] + list(extra)
        if tls_config:
            args.append("--web.config.file=" + tls_config)
        if nofile:
            args = ["prlimit", "--nofile=%d:%d" % (nofile, nofile), "--"] + args
        self.log_path = os.path.join(root, "exporter-%d.log" % self.port)
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, _, _ = scrape(self.port, "/-/ready", tls=self.tls, source="127.0.0.1")
            if status == 200:
                return True
            time.sleep(0.1)
        return False

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()


def scrape(port, path="/metrics", tls=False, source=SCRAPER_ADDRESS, timeout=5.0,
           gzip=False):
    """One GET on a new connection; (status, body, seconds). Status 0 on failure."""
    start = time.monotonic()
    data = bytearray()
    try:
        raw = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                       source_address=(source, 0))
        sock = raw
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            sock = context.wrap_socket(raw)
        with sock:
            sock.settimeout(max(0.1, timeout - (time.monotonic() - start)))
            headers = "Accept-Encoding: gzip\r\n" if gzip else ""
            sock.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n%sConnection: close\r\n\r\n"
                          % (path, headers)).encode())
            while True:
                chunk = sock.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
                if time.monotonic() - start > timeout:
                    raise TimeoutError("scrape took longer than %.1f s" % timeout)
    except ssl.SSLEOFError:
        pass  # the end of a response whose sender skipped close_notify
    except (OSError, TimeoutError):
        return 0, b"", time.monotonic() - start
    head, _, body = bytes(data).partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        status = 0
    return status, body, time.monotonic() - start


# --- attackers, in a child process (no GIL shared with the scraper) ---------------

class Attacker:
    """Nonblocking connections driven by one selector; closed ones are reopened
    once a second."""

    def __init__(self, port, count, addresses, on_open, on_tick=None, rcvbuf=None,
                 read_per_second=None, renew_every=None):
        self.port = port
        self.addresses = addresses
        self.on_open = on_open
        self.on_tick = on_tick
        self.rcvbuf = rcvbuf
        self.read_per_second = read_per_second
        self.renew_every = renew_every
        self.selector = selectors.DefaultSelector()
        self.slots = [None] * count
        self.opened = 0
        self.closed_by_server = 0

    def open(self, i):
        sock = socket.socket()
        if self.rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.rcvbuf)
        sock.bind((self.addresses[i % len(self.addresses)], 0))
        sock.setblocking(False)
        try:
            sock.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        except OSError:
            sock.close()
            return
        self.slots[i] = sock
        self.opened += 1
        self.selector.register(sock, selectors.EVENT_READ, i)
        self.on_open(sock, i)

    def drop(self, i):
        sock = self.slots[i]
        if sock is None:
            return
        self.selector.unregister(sock)
        sock.close()
        self.slots[i] = None
        self.closed_by_server += 1

    def renew(self):
        """Closes every connection and opens it anew: all of them young again."""
        for i, sock in enumerate(self.slots):
            if sock is not None:
                self.selector.unregister(sock)
                sock.close()
                self.slots[i] = None
            self.open(i)

    def run(self, seconds):
        for i in range(len(self.slots)):
            self.open(i)
        end = time.monotonic() + seconds
        next_tick = time.monotonic() + 1
        next_renewal = time.monotonic() + (self.renew_every or seconds)
        tick = 0
        while time.monotonic() < end:
            if self.renew_every and time.monotonic() >= next_renewal:
                next_renewal += self.renew_every
                self.renew()
            for key, _ in self.selector.select(timeout=0.05):
                if self.read_per_second:
                    continue  # slow readers read on the tick only
                try:
                    data = key.fileobj.recv(1 << 16)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    self.drop(key.data)
            if time.monotonic() >= next_tick:
                tick += 1
                next_tick += 1
                for i, sock in enumerate(self.slots):
                    if sock is None:
                        self.open(i)
                    elif self.read_per_second:
                        try:
                            if not sock.recv(self.read_per_second):
                                self.drop(i)
                        except (BlockingIOError, InterruptedError):
                            pass
                        except OSError:
                            self.drop(i)
                    elif self.on_tick:
                        self.on_tick(sock, i, tick)
        return self.opened, self.closed_by_server


def send_quietly(sock, data):
    try:
        sock.send(data)
    except OSError:
        pass


def attack(kind, port, seconds, ready):
    many = ["127.0.0.%d" % (k + 1) for k in range(ATTACKER_ADDRESSES)]
    one = ["127.0.0.1"]
    pipelined = METRICS * 200
    if kind == "slow-views":
        views = [b"GET /api/v1/brains HTTP/1.1\r\nHost: x\r\n\r\n",
                 b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"]
        attacker = Attacker(port, 128, ["127.0.0.1", "127.0.0.2"], rcvbuf=4096,
                            read_per_second=1024,
                            on_open=lambda s, i: send_quietly(s, views[i % 4 // 2] * 50))
    elif kind == "slow":
        # Every second request pipelines 200 scrapes; reads 1 KB a second.
        attacker = Attacker(port, SLOW_READERS, one, rcvbuf=4096, read_per_second=1024,
                            on_open=lambda s, i: send_quietly(
                                s, pipelined if i % 2 else METRICS))
    elif kind == "fast":
        fast_loop(port, seconds, ready)
        return
    else:
        flood, _, spread = kind.partition("-")
        addresses = one if spread == "one" else many
        if flood == "keepalive":
            attacker = Attacker(port, FLOOD_CONNECTIONS, addresses,
                                on_open=lambda s, i: None,
                                on_tick=lambda s, i, t: send_quietly(s, HEALTHY)
                                if (t + i) % 4 == 0 else None)
        elif flood == "tls":
            attacker = Attacker(port, FLOOD_CONNECTIONS, addresses,
                                on_open=lambda s, i: None,
                                on_tick=lambda s, i, t: send_quietly(s, HALF_TLS)
                                if t == 1 else None)
        elif flood == "young":
            attacker = Attacker(port, FLOOD_CONNECTIONS, many,
                                on_open=lambda s, i: None, renew_every=0.2)
        else:  # idle, descriptors
            attacker = Attacker(port, FLOOD_CONNECTIONS, addresses,
                                on_open=lambda s, i: None)
    ready.set()
    opened, closed = attacker.run(seconds)
    print("  attacker: %d connections opened, %d closed by the server" % (opened, closed))


def fast_loop(port, seconds, ready):
    """FAST_CLIENTS keep-alive connections, each sending the next plain scrape as soon
    as the last answer (Content-Length read) is in."""
    selector = selectors.DefaultSelector()
    state = {}

    def open_client(i):
        sock = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.1", 0))
        sock.setblocking(False)
        sock.send(METRICS)
        state[i] = [sock, bytearray(), None]
        selector.register(sock, selectors.EVENT_READ, i)

    for i in range(FAST_CLIENTS):
        open_client(i)
    ready.set()
    answers = {}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for key, _ in selector.select(timeout=0.05):
            i = key.data
            sock, buf, need = state[i]
            try:
                chunk = sock.recv(1 << 18)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            if not chunk:
                selector.unregister(sock)
                sock.close()
                open_client(i)
                continue
            buf += chunk
            while True:
                if need is None:
                    head_end = buf.find(b"\r\n\r\n")
                    if head_end < 0:
                        break
                    head = bytes(buf[:head_end]).lower()
                    status = int(head.split(b" ", 2)[1])
                    answers[status] = answers.get(status, 0) + 1
                    length = 0
                    for line in head.split(b"\r\n"):
                        if line.startswith(b"content-length:"):
                            length = int(line.split(b":")[1])
                    need = head_end + 4 + length
                if len(buf) < need:
                    break
                del buf[:need]
                need = None
                send_quietly(sock, METRICS)
            state[i][2] = need
    print("  attacker: answers by status %s" % dict(sorted(answers.items())))


# --- scenarios --------------------------------------------------------------------

def threads_of(pid):
    """The threads of process pid now (0 once it is gone)."""
    try:
        return len(os.listdir("/proc/%d/task" % pid))
    except OSError:
        return 0


def count_series(body):
    return body.count(b"\nskeleton_coherence{") + body.startswith(b"skeleton_coherence{")


def run_scenario(name, args, fixture, root):
    extra, nofile, tls_config = [], None, None
    if name in ("descriptors", "young"):
        if not shutil.which("prlimit"):
            return None if missing_tool(name, "no prlimit") == SKIP else False
        nofile = 1024 if name == "descriptors" else 256
        extra = ["--scan.interval=1s", "--scan.watch=false"]
    if name.startswith("tls"):
        if not shutil.which("openssl"):
            return None if missing_tool(name, "no openssl") == SKIP else False
        tls_config = make_tls(root)
    exporter = Exporter(args.exporter, fixture, root, extra + args.extra, nofile, tls_config)
    try:
        if not exporter.wait_ready():
            print("FAIL %s: the exporter never became ready\n%s" % (name, exporter.log_text()))
            return False
        _, body, _ = scrape(exporter.port, tls=exporter.tls)
        want = count_series(body)
        print("%s: plain metrics %d bytes, %d brains" % (name, len(body), want))
        ready = multiprocessing.Event()
        child = multiprocessing.Process(target=attack,
                                        args=(name, exporter.port, args.seconds, ready))
        child.start()
        ready.wait(30)
        time.sleep(1.5)  # let the attack take hold
        times, failures, most_threads = [], [], 0
        while child.is_alive():
            most_threads = max(most_threads, threads_of(exporter.process.pid))
            status, body, took = scrape(exporter.port, tls=exporter.tls, gzip=False)
            times.append(took)
            series = count_series(body)
            if status != 200 or series != want or took >= args.bound_ms / 1000:
                failures.append("status %d, %d of %d series, %.0f ms"
                                % (status, series, want, took * 1000))
            time.sleep(max(0.0, 0.5 - took))
        child.join()
        if not times:
            print("FAIL %s: no scrape during the attack" % name)
            return False
        times.sort()
        if most_threads > MAX_THREADS:
            failures.append("%d threads, more than %d" % (most_threads, MAX_THREADS))
        print("%s %s: %d scrapes, median %.0f ms, worst %.0f ms, %d over %d ms or wrong, "
              "at most %d threads"
              % ("FAIL" if failures else "ok", name, len(times),
                 times[len(times) // 2] * 1000, times[-1] * 1000, len(failures),
                 args.bound_ms, most_threads))
        for failure in failures[:5]:
            print("  " + failure)
        if exporter.process.poll() is not None:
            print("  the exporter exited (status %s):\n%s"
                  % (exporter.process.returncode, exporter.log_text()[-3000:]))
            return False
        limits = [line for line in exporter.log_text().splitlines()
                  if "connection limits" in line]
        if limits:
            print("  " + limits[0])
        return not failures
    finally:
        exporter.stop()


SCENARIOS = ["slow", "slow-views", "fast", "idle-one", "idle-many", "keepalive-one",
             "keepalive-many", "tls-one", "tls-many", "descriptors", "young"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exporter")
    parser.add_argument("scenarios", nargs="*", default=[])
    parser.add_argument("--bound-ms", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--extra", action="append", default=[],
                        help="one more exporter flag (repeatable)")
    args = parser.parse_args()
    unknown = [name for name in args.scenarios if name not in SCENARIOS]
    if unknown:
        parser.error("unknown scenario %s (known: %s)" % (unknown, ", ".join(SCENARIOS)))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = FLOOD_CONNECTIONS + 512
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            print("SKIP: RLIMIT_NOFILE hard limit %d is below %d" % (hard, need))
            return 77
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    root = tempfile.mkdtemp(prefix="scx-flood-", dir=base)
    try:
        fixture = make_fixture(root)
        results = [run_scenario(name, args, fixture, root)
                   for name in (args.scenarios or SCENARIOS)]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if any(result is False for result in results):
        return 1
    if all(result is None for result in results):
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
