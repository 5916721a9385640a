"""Black-box harness for `cuzk serve`: the Python stubs of cuzk.v1 (generated at test time with
protoc and Debian's grpc_python_plugin), a Daemon process wrapper (start, wait until it
listens, its memory and threads from /proc, SIGTERM / SIGKILL), and small client helpers.

Used by hostile_test.py and soak.py; needs Debian's python3-grpcio and python3-protobuf."""

import importlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77  # CTest's SKIP_RETURN_CODE for the tests registered with it

try:
    import grpc
except ImportError:
    print("SKIP: python3-grpcio is not installed (scripts/setup.sh installs it)")
    sys.exit(SKIP)


def load_stubs(proto_root, parent):
    """Generates (into a new folder under parent) and imports cuzk/v1/proving_engine_pb2(_grpc)
    from proto_root."""
    plugin = shutil.which("grpc_python_plugin")
    if plugin is None:
        print("SKIP: grpc_python_plugin (protobuf-compiler-grpc) is not installed")
        sys.exit(SKIP)
    os.makedirs(parent, exist_ok=True)
    out_dir = tempfile.mkdtemp(prefix="stubs", dir=parent)
    subprocess.run(["protoc", f"--proto_path={proto_root}", f"--python_out={out_dir}",
                    f"--grpc_out={out_dir}", f"--plugin=protoc-gen-grpc={plugin}",
                    os.path.join(proto_root, "cuzk/v1/proving_engine.proto")], check=True)
    sys.path.insert(0, out_dir)
    pb = importlib.import_module("cuzk.v1.proving_engine_pb2")
    rpc = importlib.import_module("cuzk.v1.proving_engine_pb2_grpc")
    return pb, rpc


class Daemon:
    """A `cuzk serve` process with a unix socket in a short temporary folder."""

    def __init__(self, cuzk, workdir, args, name="daemon", socket=None):
        self.cuzk, self.args = cuzk, list(args)
        self.dir = workdir
        self.socket = socket or tempfile.mkdtemp(prefix="cz", dir="/tmp") + "/s.sock"
        self.log_path = os.path.join(workdir, name + ".log")
        self.proc = None
        self.tcp_port = self.http_port = 0

    def start(self, timeout=30):
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([self.cuzk, "serve", "--socket", self.socket] + self.args,
                                     stdout=log, stderr=log)
        deadline = time.time() + timeout
        while time.time() < deadline:
            text = self.log()
            started = [l for l in text.splitlines() if "event=daemon_started" in l]
            if started and self.proc.poll() is None and os.path.exists(self.socket):
                line = started[-1]
                self.tcp_port = int(re.search(r"tcp_port=(\d+)", line).group(1))
                self.http_port = int(re.search(r"http_port=(-?\d+)", line).group(1))
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"cuzk serve exited with {self.proc.returncode}:\n{text}")
            time.sleep(0.05)
        raise RuntimeError("cuzk serve did not start:\n" + self.log())

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def status_field(self, name):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
        raise KeyError(name)

    def rss_mb(self):
        return self.status_field("VmRSS") / 1024

    def peak_mb(self):
        return self.status_field("VmHWM") / 1024

    def threads(self):
        return self.status_field("Threads")

    def terminate(self, timeout=30):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout)
        return self.proc.returncode

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def unix_channel(self):
        return grpc.insecure_channel("unix:" + self.socket, options=CHANNEL_OPTIONS)

    def tcp_channel(self):
        return grpc.insecure_channel(f"127.0.0.1:{self.tcp_port}", options=CHANNEL_OPTIONS)


CHANNEL_OPTIONS = [("grpc.max_send_message_length", -1),
                   ("grpc.max_receive_message_length", -1)]


def bearer(token):
    return [("authorization", "Bearer " + token)]


def code_of(call):
    """The status code of a call (OK when it returns), and its details or result."""
    try:
        return grpc.StatusCode.OK, call()
    except grpc.RpcError as e:
        return e.code(), e.details()


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def run_tests(tests, argv):
    """Runs the named test (argv[1]) or all of them; each gets a fresh work folder."""
    names = argv[1:] or list(tests)
    for name in names:
        started = time.time()
        tests[name]()
        print(f"PASS {name} ({time.time() - started:.1f} s)")
