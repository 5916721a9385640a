"""`cuzk serve` under hostile clients (issue: the daemon under hostile clients, restarts and
floods), black-box through its public API: gRPC over the unix socket and TCP, HTTP, and the CLI.

  hostile_test.py CUZK PROTO_ROOT WORKDIR [test ...]

Each test starts its own daemon (sim backend: modeled GPUs, a proof is "sim-proof:" followed by
the witness bytes, so a result names its input) and takes seconds."""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import grpc

import harness
from harness import bearer, check, code_of

CUZK, PROTO_ROOT, WORK = sys.argv[1:4]
pb, rpc = harness.load_stubs(PROTO_ROOT, WORK)
STUBS = os.path.dirname(os.path.dirname(os.path.dirname(pb.__file__)))
OK = grpc.StatusCode.OK

TOKEN_A, TOKEN_B, ADMIN = "tenant-a-token", "tenant-b-token", "the-admin-token"


def workdir(name):
    """A fresh folder for one test (what an earlier run left is removed)."""
    path = os.path.join(WORK, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def tenants_daemon(name, extra=(), d=None):
    """A sim daemon with a unix socket, TCP with two client tokens and an admin token."""
    d = d or workdir(name)
    with open(os.path.join(d, "tokens"), "w") as f:
        f.write(f"# tenants\n{TOKEN_A}\r\n\n{TOKEN_B}\n")
    with open(os.path.join(d, "admin"), "w") as f:
        f.write(ADMIN + "\r\n")
    args = ["--backend", "sim", "--address", "127.0.0.1:0", "--http", "127.0.0.1:0",
            "--tokens-file", os.path.join(d, "tokens"),
            "--admin-token-file", os.path.join(d, "admin"),
            "--sim-gpus", "1", "--workers-per-gpu", "1",
            "--sim-key", "fast=1000", "--sim-key", "slow=1000000",
            "--sim-kernel-ns", "300"] + list(extra)
    return harness.Daemon(CUZK, d, args, name).start()


def job(key, *witnesses, request_id=""):
    return pb.SubmitProofRequest(key_id=key, request_id=request_id,
                                 partitions=[pb.Witness(wtns=w) for w in witnesses])


def test_unauthenticated_allocation():
    """A 256 MiB SubmitProof with a wrong token is refused before it is read: the daemon's peak
    memory grows by a few MB at most (it grew by 600 MB when the token was checked in the
    handler, after gRPC had received and parsed the message)."""
    daemon = tenants_daemon("unauthenticated_allocation")
    try:
        stub = rpc.ProvingEngineStub(daemon.tcp_channel())
        check(code_of(lambda: stub.GetStatus(pb.GetStatusRequest(), metadata=bearer(TOKEN_A)))[0]
              == OK, "a good token is accepted")
        code, _ = code_of(lambda: stub.GetStatus(pb.GetStatusRequest(), metadata=bearer("nope")))
        check(code == grpc.StatusCode.UNAUTHENTICATED, f"a wrong token: {code}")
        before = daemon.peak_mb()
        huge = job("fast", b"\0" * (256 << 20))
        for metadata in (bearer("wrong"), []):
            code, details = code_of(lambda: stub.SubmitProof(huge, metadata=metadata, timeout=60))
            check(code == grpc.StatusCode.UNAUTHENTICATED, f"{code}: {details}")
        grown = daemon.peak_mb() - before
        check(grown < 16, f"the daemon's peak memory grew by {grown:.0f} MB")
    finally:
        daemon.kill()


def test_token_file_with_crlf():
    """Token files ending in CRLF (and a tokens file with blank lines) are read as the token."""
    daemon = tenants_daemon("token_crlf")
    try:
        stub = rpc.ProvingEngineStub(daemon.tcp_channel())
        for token in (TOKEN_A, TOKEN_B, ADMIN):
            code, details = code_of(lambda: stub.GetStatus(pb.GetStatusRequest(),
                                                           metadata=bearer(token)))
            check(code == OK, f"token {token}: {code} {details}")
    finally:
        daemon.kill()


def test_tcp_without_token_refused():
    """A TCP listener without a token does not start unless --insecure-no-token says so."""
    d = workdir("tcp_without_token")
    base = [CUZK, "serve", "--backend", "sim", "--socket", "", "--http", "",
            "--address", "127.0.0.1:0", "--sim-key", "fast=1000"]
    run = subprocess.run(base, capture_output=True, text=True, timeout=30)
    check(run.returncode == 2, f"exit {run.returncode}: {run.stderr}")
    check("insecure-no-token" in run.stderr, run.stderr)
    daemon = harness.Daemon(CUZK, d, ["--backend", "sim", "--address", "127.0.0.1:0",
                                      "--http", "", "--insecure-no-token",
                                      "--sim-key", "fast=1000"]).start()
    daemon.kill()


def test_paths_are_local_only():
    """Witness and key paths from TCP clients are refused without reading (or revealing) the
    file; from the unix socket a non-witness file is refused without echoing its bytes; key
    management from TCP needs the admin token."""
    daemon = tenants_daemon("paths_local_only")
    try:
        tcp = rpc.ProvingEngineStub(daemon.tcp_channel())
        a = bearer(TOKEN_A)
        for path in ("/etc/passwd", "/nonexistent/x.wtns", "/etc/../etc/passwd"):
            request = pb.SubmitProofRequest(key_id="fast", partitions=[pb.Witness(path=path)])
            code, details = code_of(lambda: tcp.SubmitProof(request, metadata=a))
            check(code == grpc.StatusCode.PERMISSION_DENIED, f"{path}: {code} {details}")
            check("root" not in details, details)
        code, details = code_of(lambda: tcp.PreloadKey(
            pb.PreloadKeyRequest(key_id="k", path="/etc/passwd"), metadata=a))
        check(code == grpc.StatusCode.PERMISSION_DENIED, f"PreloadKey: {code} {details}")
        code, details = code_of(lambda: tcp.EvictKey(pb.EvictKeyRequest(key_id="fast"),
                                                     metadata=a))
        check(code == grpc.StatusCode.PERMISSION_DENIED, f"EvictKey: {code} {details}")
        code, details = code_of(lambda: tcp.EvictKey(pb.EvictKeyRequest(key_id="fast"),
                                                     metadata=bearer(ADMIN)))
        check(code == OK, f"EvictKey by the admin: {code} {details}")
        local = rpc.ProvingEngineStub(daemon.unix_channel())
        request = pb.SubmitProofRequest(key_id="fast", partitions=[pb.Witness(path="/etc/passwd")])
        code, details = code_of(lambda: local.SubmitProof(request))
        check(code == grpc.StatusCode.INVALID_ARGUMENT and "not a .wtns file" in details,
              f"{code} {details}")
        check("root" not in details, f"file contents in the message: {details}")
    finally:
        daemon.kill()


def test_allowed_directory_over_tcp():
    """allow_paths_over_tcp admits files under it, and not a symlink in it that leads out."""
    d = workdir("allowed_dir")
    allowed = os.path.join(d, "allowed")
    os.makedirs(allowed, exist_ok=True)
    with open(os.path.join(allowed, "w.wtns"), "wb") as f:
        f.write(b"wtns-allowed")
    link = os.path.join(allowed, "escape.wtns")
    os.symlink("/etc/passwd", link)
    daemon = tenants_daemon("allowed_dir", ["--allow-paths-over-tcp", allowed], d)
    try:
        tcp = rpc.ProvingEngineStub(daemon.tcp_channel())
        a = bearer(TOKEN_A)
        request = pb.SubmitProofRequest(
            key_id="fast", partitions=[pb.Witness(path=os.path.join(allowed, "w.wtns"))])
        code, r = code_of(lambda: tcp.Prove(pb.ProveRequest(job=request, timeout_ms=20000),
                                            metadata=a))
        check(code == OK and r.partitions[0].proof == b"sim-proof:wtns-allowed", f"{code} {r}")
        request = pb.SubmitProofRequest(key_id="fast", partitions=[pb.Witness(path=link)])
        code, details = code_of(lambda: tcp.SubmitProof(request, metadata=a))
        check(code == grpc.StatusCode.PERMISSION_DENIED, f"symlink out: {code} {details}")
    finally:
        daemon.kill()


def test_witness_path_opened_once():
    """A witness path is opened at submission: replacing it by a symlink to /dev/zero or by
    other contents while the job waits changes nothing; a FIFO, a device or an oversized file
    is refused at once (a FIFO used to block the only worker forever)."""
    d = workdir("opened_once")
    daemon = tenants_daemon("opened_once", d=d)
    try:
        local = rpc.ProvingEngineStub(daemon.unix_channel())
        blocker = local.SubmitProof(job("slow", b"w1", b"w2"))  # ~0.6 s of the only worker
        paths = []
        for i, target in enumerate(("/dev/zero", None)):
            path = os.path.join(d, f"w{i}.wtns")
            with open(path, "wb") as f:
                f.write(b"wtns-original-%d" % i)
            paths.append((path, target))
        ids = []
        for path, _ in paths:
            ids.append(local.SubmitProof(pb.SubmitProofRequest(
                key_id="fast", partitions=[pb.Witness(path=path)])).job_id)
        for path, target in paths:
            os.remove(path)
            if target:
                os.symlink(target, path)
            else:
                with open(path, "wb") as f:
                    f.write(b"wtns-replaced")
        for i, job_id in enumerate(ids):
            r = local.AwaitProof(pb.AwaitProofRequest(job_id=job_id, timeout_ms=30000))
            check(r.partitions[0].proof == b"sim-proof:wtns-original-%d" % i, str(r))
        local.AwaitProof(pb.AwaitProofRequest(job_id=blocker.job_id, timeout_ms=30000))
        fifo = os.path.join(d, "fifo.wtns")
        os.mkfifo(fifo)
        big = os.path.join(d, "big.wtns")
        with open(big, "wb") as f:
            f.write(b"wtns")
            f.truncate(64 << 20)
        for path, words in ((fifo, "not a regular file"), ("/dev/zero", "not a regular file"),
                            (big, "more than")):
            started = time.time()
            request = pb.SubmitProofRequest(key_id="fast", partitions=[pb.Witness(path=path)])
            code, details = code_of(lambda: local.SubmitProof(request, timeout=10))
            check(code == grpc.StatusCode.INVALID_ARGUMENT and words in details,
                  f"{path}: {code} {details}")
            check(time.time() - started < 2, f"{path}: took {time.time() - started:.1f} s")
        r = local.Prove(pb.ProveRequest(job=job("fast", b"after"), timeout_ms=20000))
        check(r.partitions[0].proof == b"sim-proof:after", "the worker still serves")
    finally:
        daemon.kill()


def test_jobs_belong_to_their_client():
    """Another client's job is NOT_FOUND (as an unknown one) for AwaitProof and CancelProof;
    request ids are per client; the admin token sees every job."""
    daemon = tenants_daemon("ownership")
    try:
        tcp = rpc.ProvingEngineStub(daemon.tcp_channel())
        a, b = bearer(TOKEN_A), bearer(TOKEN_B)
        job_a = tcp.SubmitProof(job("slow", b"secret-of-a", request_id="r1"), metadata=a).job_id
        job_b = tcp.SubmitProof(job("fast", b"of-b", request_id="r1"), metadata=b).job_id
        check(job_a != job_b, "one request id named another client's job")
        unknown = 10**12
        _, unknown_details = code_of(lambda: tcp.AwaitProof(
            pb.AwaitProofRequest(job_id=unknown), metadata=b))
        for call in (lambda: tcp.AwaitProof(pb.AwaitProofRequest(job_id=job_a, timeout_ms=100),
                                            metadata=b),
                     lambda: tcp.CancelProof(pb.CancelProofRequest(job_id=job_a), metadata=b)):
            code, details = code_of(call)
            check(code == grpc.StatusCode.NOT_FOUND, f"{code} {details}")
            check(details == unknown_details.replace(str(unknown), str(job_a)), details)
        r = tcp.AwaitProof(pb.AwaitProofRequest(job_id=job_a, timeout_ms=30000), metadata=a)
        check(r.partitions[0].proof == b"sim-proof:secret-of-a", str(r))
        r = tcp.AwaitProof(pb.AwaitProofRequest(job_id=job_a, timeout_ms=30000),
                           metadata=bearer(ADMIN))
        check(r.state == pb.JOB_STATE_SUCCEEDED, "the admin sees every job")
        local = rpc.ProvingEngineStub(daemon.unix_channel())
        code, _ = code_of(lambda: local.AwaitProof(pb.AwaitProofRequest(job_id=job_b,
                                                                        timeout_ms=30000)))
        check(code == OK, "the daemon's own uid on the unix socket is an admin")
    finally:
        daemon.kill()


PEER_CLIENT = """
import sys
sys.path.insert(0, sys.argv[1])
import grpc
from cuzk.v1 import proving_engine_pb2 as pb, proving_engine_pb2_grpc as rpc
stub = rpc.ProvingEngineStub(grpc.insecure_channel("unix:" + sys.argv[2]))
try:
    stub.AwaitProof(pb.AwaitProofRequest(job_id=int(sys.argv[3]), timeout_ms=100))
    print("root-job OK")
except grpc.RpcError as e:
    print("root-job", e.code().name)
job = stub.SubmitProof(pb.SubmitProofRequest(key_id="fast", partitions=[pb.Witness(wtns=b"n")]))
print("own-job", job.job_id)
"""


def test_unix_peers_are_separate_clients():
    """On the unix socket each uid (SO_PEERCRED) is its own client: another uid's job is
    NOT_FOUND; root sees every job. Needs root (to run a client as nobody); skipped otherwise."""
    if os.geteuid() != 0:
        print("SKIP: needs root to run a second client as another uid")
        sys.exit(harness.SKIP)
    d = workdir("unix_peers")
    with open(os.path.join(d, "cuzk.toml"), "w") as f:
        f.write("[server]\nsocket_mode = 0o666\n")
    daemon = harness.Daemon(CUZK, d, ["--config", os.path.join(d, "cuzk.toml"), "--backend", "sim",
                                      "--http", "", "--sim-key", "fast=1000"], "peers").start()
    try:
        os.chmod(os.path.dirname(daemon.socket), 0o755)
        stubs = tempfile.mkdtemp(prefix="czstubs", dir="/tmp")  # readable by the other uid
        shutil.copytree(STUBS, stubs, dirs_exist_ok=True)
        for folder, _, _ in os.walk(stubs):
            os.chmod(folder, 0o755)
        local = rpc.ProvingEngineStub(daemon.unix_channel())
        root_job = local.SubmitProof(job("fast", b"r")).job_id
        nobody = 65534
        run = subprocess.run([sys.executable, "-c", PEER_CLIENT, stubs, daemon.socket,
                              str(root_job)], capture_output=True, text=True, timeout=30,
                             preexec_fn=lambda: (os.setgid(nobody), os.setuid(nobody)))
        check(run.returncode == 0, run.stderr)
        lines = dict(l.split(" ", 1) for l in run.stdout.splitlines())
        check(lines.get("root-job") == "NOT_FOUND", run.stdout)
        r = local.AwaitProof(pb.AwaitProofRequest(job_id=int(lines["own-job"]), timeout_ms=20000))
        check(r.partitions[0].proof == b"sim-proof:n", "root sees the other uid's job")
        check(f"owner=uid:{nobody}" in daemon.log(), "the job's owner is the peer's uid")
    finally:
        daemon.kill()


def test_waiters_hold_no_threads():
    """1,000 clients waiting for a job hold no thread each (500 waiters held 513 threads)."""
    daemon = tenants_daemon("waiters")
    try:
        channels = [daemon.unix_channel() for _ in range(10)]
        stubs = [rpc.ProvingEngineStub(c) for c in channels]
        job_id = stubs[0].SubmitProof(job("slow", *[b"w"] * 30)).job_id  # ~9 s if not cancelled
        futures = [stubs[i % 10].AwaitProof.future(
            pb.AwaitProofRequest(job_id=job_id, timeout_ms=60000), timeout=90)
            for i in range(1000)]
        time.sleep(2)
        threads = daemon.threads()
        check(threads < 100, f"{threads} threads with 1,000 waiting calls")
        check(not any(f.done() for f in futures), "a wait ended early")
        started = time.time()
        stubs[0].CancelProof(pb.CancelProofRequest(job_id=job_id))
        codes = [f.exception().code() if f.exception() else OK for f in futures]
        check(all(c == grpc.StatusCode.CANCELLED for c in codes), f"{set(codes)}")
        check(time.time() - started < 10, f"waiters answered in {time.time() - started:.1f} s")
    finally:
        daemon.kill()


def test_http_concurrent():
    """Idle HTTP connections do not delay /status (ten idle ones delayed it by 20 s)."""
    daemon = tenants_daemon("http")
    idle = []
    try:
        for _ in range(10):
            s = socket.create_connection(("127.0.0.1", daemon.http_port))
            s.send(b"GET /status HTTP/1.1\r\n")  # never finished
            idle.append(s)
        started = time.time()
        with urllib.request.urlopen(f"http://127.0.0.1:{daemon.http_port}/status",
                                    timeout=5) as r:
            check(r.status == 200 and b'"backend"' in r.read(), "the /status page")
        check(time.time() - started < 1, f"/status took {time.time() - started:.1f} s")
    finally:
        for s in idle:
            s.close()
        daemon.kill()


def test_huge_timeouts_and_ids():
    """timeout_ms ≥ 2^62 waits (it overflowed into an immediate DEADLINE_EXCEEDED, and Prove
    cancelled its own job); an 8 MB key id is refused and logged truncated."""
    daemon = tenants_daemon("huge_values")
    try:
        local = rpc.ProvingEngineStub(daemon.unix_channel())
        r = local.Prove(pb.ProveRequest(job=job("fast", b"p"), timeout_ms=2**62))
        check(r.state == pb.JOB_STATE_SUCCEEDED, str(r))
        job_id = local.SubmitProof(job("slow", b"s", b"s")).job_id
        started = time.time()
        code, details = code_of(lambda: local.AwaitProof(
            pb.AwaitProofRequest(job_id=job_id, timeout_ms=2**64 - 1), timeout=0.3))
        check(code == grpc.StatusCode.DEADLINE_EXCEEDED and time.time() - started >= 0.25,
              f"{code} after {time.time() - started:.2f} s: {details}")
        r = local.AwaitProof(pb.AwaitProofRequest(job_id=job_id, timeout_ms=2**63))
        check(r.state == pb.JOB_STATE_SUCCEEDED, str(r))
        code, details = code_of(lambda: local.SubmitProof(job("k" * (8 << 20), b"x")))
        check(code == grpc.StatusCode.INVALID_ARGUMENT and "more than 256" in details,
              f"{code} {details[:200]}")
        longest = max(len(l) for l in daemon.log().splitlines())
        check(longest < 2048, f"a log line of {longest} bytes")
    finally:
        daemon.kill()


def test_cli_bad_input():
    """Negative or absurd options are refused with exit 2; `cuzk submit --wtns DIR` is bad
    input (exit 2, naming the directory), not an internal error."""
    d = workdir("cli")
    for flag in (["--retention", "-1"], ["--retention", "1e300"], ["--drain-timeout", "-5"]):
        run = subprocess.run([CUZK, "serve", "--backend", "sim", "--socket", d + "/x.sock"] +
                             flag, capture_output=True, text=True, timeout=30)
        check(run.returncode == 2, f"{flag}: exit {run.returncode}: {run.stderr}")
    daemon = tenants_daemon("cli_daemon")
    try:
        run = subprocess.run([CUZK, "submit", "--socket", daemon.socket, "--key", "fast",
                              "--wtns", d], capture_output=True, text=True, timeout=30)
        check(run.returncode == 2 and "is a directory" in run.stderr,
              f"exit {run.returncode}: {run.stderr}")
    finally:
        daemon.kill()


def test_proof_bytes_and_format():
    """Results carry the proof as bytes with its format; the deprecated proof_json still holds
    the text; `cuzk await --proof` writes the bytes."""
    d = workdir("proof_format")
    daemon = tenants_daemon("proof_format", d=d)
    try:
        local = rpc.ProvingEngineStub(daemon.unix_channel())
        job_id = local.SubmitProof(job("fast", b"abc")).job_id
        r = local.AwaitProof(pb.AwaitProofRequest(job_id=job_id, timeout_ms=20000))
        p = r.partitions[0]
        check(p.proof == b"sim-proof:abc" and p.proof_format == pb.PROOF_FORMAT_SIM_TOKEN, str(p))
        check(p.proof_json == "sim-proof:abc", "the deprecated field is still filled")
        out = os.path.join(d, "proof.bin")
        run = subprocess.run([CUZK, "await", str(job_id), "--socket", daemon.socket,
                              "--proof", out], capture_output=True, text=True, timeout=30)
        check(run.returncode == 0, run.stderr)
        with open(out, "rb") as f:
            check(f.read() == b"sim-proof:abc", "the proof file")
    finally:
        daemon.kill()


def test_cpu_backend():
    """The cpu backend under the same rules: proofs by value and by (local) path verify with
    `cuzk verify`; a TCP path is refused; another client's job is NOT_FOUND; a witness path
    replaced after submission is not read (the file opened at submission is); a wrong-magic
    file's bytes are not echoed."""
    d = workdir("cpu")
    r1cs, wtns, zkey, vk = (os.path.join(d, n) for n in ("c.r1cs", "c.wtns", "c.zkey", "vk.json"))
    subprocess.run([CUZK, "gen", "--curve", "bn254", "--shape", "dense", "--constraints", "1000",
                    "--r1cs", r1cs, "--wtns", wtns], check=True, capture_output=True)
    subprocess.run([CUZK, "setup", r1cs, zkey, vk], check=True, capture_output=True)
    with open(wtns, "rb") as f:
        witness = f.read()
    path = os.path.join(d, "by-path.wtns")
    with open(path, "wb") as f:
        f.write(witness)
    with open(os.path.join(d, "tokens"), "w") as f:
        f.write(f"{TOKEN_A}\n{TOKEN_B}\n")
    daemon = harness.Daemon(CUZK, d, ["--backend", "cpu", "--cpu-workers", "1",
                                      "--address", "127.0.0.1:0", "--http", "",
                                      "--tokens-file", os.path.join(d, "tokens"),
                                      "--key", "c=" + zkey], "cpu").start()
    try:
        tcp = rpc.ProvingEngineStub(daemon.tcp_channel())
        local = rpc.ProvingEngineStub(daemon.unix_channel())
        a, b = bearer(TOKEN_A), bearer(TOKEN_B)
        by_value = tcp.SubmitProof(job("c", witness), metadata=a).job_id
        by_path = local.SubmitProof(pb.SubmitProofRequest(
            key_id="c", partitions=[pb.Witness(path=path)])).job_id
        with open(path + ".new", "wb") as f:  # the path replaced after submission
            f.write(b"wtns" + b"\xff" * (len(witness) - 4))
        os.replace(path + ".new", path)
        code, details = code_of(lambda: tcp.AwaitProof(
            pb.AwaitProofRequest(job_id=by_value, timeout_ms=100), metadata=b))
        check(code == grpc.StatusCode.NOT_FOUND, f"{code} {details}")
        request = pb.SubmitProofRequest(key_id="c", partitions=[pb.Witness(path=wtns)])
        code, details = code_of(lambda: tcp.SubmitProof(request, metadata=a))
        check(code == grpc.StatusCode.PERMISSION_DENIED, f"{code} {details}")
        request = pb.SubmitProofRequest(key_id="c", partitions=[pb.Witness(path=vk)])
        code, details = code_of(lambda: local.SubmitProof(request))
        check(code == grpc.StatusCode.INVALID_ARGUMENT and "protocol" not in details, details)
        results = [tcp.AwaitProof(pb.AwaitProofRequest(job_id=by_value, timeout_ms=60000),
                                  metadata=a),
                   local.AwaitProof(pb.AwaitProofRequest(job_id=by_path, timeout_ms=60000))]
        for i, r in enumerate(results):
            p = r.partitions[0]
            check(p.proof_format == pb.PROOF_FORMAT_SNARKJS_JSON, str(p.proof_format))
            proof, public = os.path.join(d, f"proof{i}.json"), os.path.join(d, f"public{i}.json")
            with open(proof, "wb") as f:
                f.write(p.proof)
            with open(public, "w") as f:
                f.write(p.public_json)
            run = subprocess.run([CUZK, "verify", vk, public, proof], capture_output=True,
                                 text=True)
            check(run.returncode == 0, f"proof {i} does not verify: {run.stdout} {run.stderr}")
    finally:
        daemon.kill()


def test_readers_refuse_non_regular_files():
    """Every input reader refuses what is not a regular file, at once: the CLI's `verify` and
    `prove` given /dev/zero or a FIFO (they read until memory ran out, or blocked forever),
    and the daemon given a FIFO's path on its unix socket; the daemon serves on."""
    d = workdir("non_regular")
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    r1cs, wtns, zkey, vk = (os.path.join(d, n) for n in ("c.r1cs", "c.wtns", "c.zkey", "vk.json"))
    subprocess.run([CUZK, "gen", "--curve", "bn254", "--shape", "chain", "--constraints", "60",
                    "--r1cs", r1cs, "--wtns", wtns], check=True, capture_output=True)
    subprocess.run([CUZK, "setup", r1cs, zkey, vk], check=True, capture_output=True)
    for bad in ("/dev/zero", fifo):
        for argv in ([CUZK, "verify", vk, bad, vk], [CUZK, "prove", zkey, bad,
                                                      os.path.join(d, "p.json"),
                                                      os.path.join(d, "pub.json"),
                                                      "--backend", "cpu"]):
            start = time.monotonic()
            run = subprocess.run(argv, capture_output=True, text=True, timeout=30)
            took = time.monotonic() - start
            check(run.returncode == 2 and "not a regular file" in run.stderr,
                  f"{argv[1]} {bad}: exit {run.returncode}: {run.stderr}")
            check(took < 10, f"{argv[1]} {bad} took {took:.1f} s")
    daemon = tenants_daemon("non_regular_daemon")
    try:
        local = rpc.ProvingEngineStub(daemon.unix_channel())
        request = pb.SubmitProofRequest(key_id="fast", partitions=[pb.Witness(path=fifo)])
        code, details = code_of(lambda: local.SubmitProof(request, timeout=30))
        check(code == grpc.StatusCode.INVALID_ARGUMENT and "not a regular file" in details,
              f"{code} {details}")
        check(code_of(lambda: local.GetStatus(pb.GetStatusRequest(), timeout=10))[0] == OK,
              "the daemon serves on")
    finally:
        daemon.kill()


def test_admission_in_witness_bytes():
    """Witnesses held for queued partitions count against the host budget: past it a
    submission is RESOURCE_EXHAUSTED with the numbers (2,000 submissions of 512 KiB were all
    accepted under a 128 MiB budget when the queue counted partitions), and cancelling the queued jobs gives the
    bytes back, so that new submissions are accepted again."""
    d = workdir("admission")
    daemon = harness.Daemon(CUZK, d, ["--backend", "sim", "--http", "", "--sim-gpus", "1",
                                      "--workers-per-gpu", "1", "--sim-key", "fast=1000",
                                      "--sim-kernel-ns", "1000000", "--host-budget", "2MiB"],
                            "admission").start()
    try:
        local = rpc.ProvingEngineStub(daemon.unix_channel())
        witness = b"w" * 60000  # what a witness of this sim key may be: 64,000 bytes
        accepted, refusal = [], None
        for _ in range(200):
            code, answer = code_of(lambda: local.SubmitProof(job("fast", witness), timeout=30))
            if code != OK:
                refusal = (code, answer)
                break
            accepted.append(answer.job_id)
        check(refusal is not None, f"{len(accepted)} submissions of 512 KiB were all accepted")
        code, details = refusal
        check(code == grpc.StatusCode.RESOURCE_EXHAUSTED, f"{code}: {details}")
        check(any(ch.isdigit() for ch in details) and "byte" in details.lower(),
              f"the refusal names the numbers: {details}")
        check(len(accepted) * len(witness) <= 2 << 20,
              f"{len(accepted)} witnesses of {len(witness)} bytes accepted under a 2 MiB budget")
        for job_id in accepted:
            local.CancelProof(pb.CancelProofRequest(job_id=job_id), timeout=30)
        deadline = time.monotonic() + 30
        while True:
            code, details = code_of(lambda: local.SubmitProof(job("fast", witness), timeout=30))
            if code == OK or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        check(code == OK, f"after cancelling, a submission is still refused: {code} {details}")
    finally:
        daemon.kill()


TESTS = {name[len("test_"):]: fn for name, fn in globals().items() if name.startswith("test_")}

if __name__ == "__main__":
    harness.run_tests(TESTS, [sys.argv[0]] + sys.argv[4:])
