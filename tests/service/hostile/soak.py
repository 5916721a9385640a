"""Soak of `cuzk serve` (sim backend): 32 clients, each with its own token, run a random mix of
good jobs, bad witnesses, cancels, disconnects and Prove calls cut by their deadline, while the
daemon is killed with SIGKILL and restarted (CUZK_SOAK_RESTARTS times, 2 by default). Every job
a client saw accepted must end (when it awaits it, during the run or at the end) SUCCEEDED with
the proof of its own witness (a sim proof is "sim-proof:" + the witness, and every witness is
unique), FAILED or CANCELLED with a reason; never forgotten (NOT_FOUND) before the client
fetched its result, never another job's proof. Throughout, the daemon's
RSS stays under its host budget + 200 MB and its threads under 100.

  soak.py CUZK PROTO_ROOT WORKDIR

Environment: CUZK_SOAK_SCALE (default 1: about a minute; the run phase is 30 s × scale),
CUZK_SOAK_RESTARTS (default 2), CUZK_SOAK_DAEMON_ARGS (more `cuzk serve` arguments; "{dir}" is
replaced by the work folder, e.g. where a journal lives), CUZK_SOAK_SEED.

Jobs accepted before a SIGKILL are found again only with the daemon's durable job journal."""

import os
import random
import shlex
import shutil
import sys
import threading
import time

import harness
from harness import bearer

CUZK, PROTO_ROOT, WORK = sys.argv[1:4]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
pb, rpc = harness.load_stubs(PROTO_ROOT, WORK)
import grpc  # noqa: E402  (after harness, which skips without python3-grpcio)

SCALE = float(os.environ.get("CUZK_SOAK_SCALE", "1"))
RESTARTS = int(os.environ.get("CUZK_SOAK_RESTARTS", "2"))
SEED = int(os.environ.get("CUZK_SOAK_SEED", str(int(time.time()))))
CLIENTS = 32
RUN_S = 30 * SCALE
HOST_BUDGET_MB = 256
print(f"soak: seed {SEED}, scale {SCALE}, {RESTARTS} restarts", flush=True)

tokens = [f"soak-client-{i:02d}-{random.Random(SEED + i).getrandbits(64):016x}"
          for i in range(CLIENTS)]
with open(os.path.join(WORK, "tokens"), "w") as f:
    f.write("\n".join(tokens) + "\n")
extra = [a.replace("{dir}", WORK) for a in shlex.split(os.environ.get("CUZK_SOAK_DAEMON_ARGS", ""))]
ARGS = ["--backend", "sim", "--address", "127.0.0.1:0", "--http", "",
        "--tokens-file", os.path.join(WORK, "tokens"), "--host-budget", f"{HOST_BUDGET_MB}MiB",
        "--retention", "3600", "--sim-gpus", "2", "--sim-kernel-ns", "20",
        "--sim-key", "small=20000", "--sim-key", "large=200000"] + extra
socket_path = os.path.join("/tmp", f"cuzk-soak-{os.getpid()}.sock")


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.daemon = None
        self.address = None
        self.stop = False
        self.violations = []
        self.max_rss_mb = 0
        self.max_threads = 0
        self.counts = {}

    def fail(self, message):
        with self.lock:
            self.violations.append(message)
        print("VIOLATION:", message, flush=True)

    def count(self, what):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1


state = State()


def start_daemon(name):
    d = harness.Daemon(CUZK, WORK, ARGS, name, socket=socket_path).start()
    with state.lock:
        state.daemon = d
        state.address = f"127.0.0.1:{d.tcp_port}"


def monitor():
    while not state.stop:
        d = state.daemon
        try:
            rss, threads = d.rss_mb(), d.threads()
            with state.lock:
                state.max_rss_mb = max(state.max_rss_mb, rss)
                state.max_threads = max(state.max_threads, threads)
        except (OSError, KeyError):
            pass  # between a kill and the restart
        time.sleep(0.2)


def stub():
    channel = grpc.insecure_channel(state.address, options=harness.CHANNEL_OPTIONS)
    return channel, rpc.ProvingEngineStub(channel)


def classify(code, result_or_details, witness):
    """The outcome of a final answer, or None when the answer is not final."""
    if code == grpc.StatusCode.OK:
        proofs = [p.proof for p in result_or_details.partitions]
        if proofs != [b"sim-proof:" + w for w in witness]:
            return "wrong-proof"
        return "succeeded"
    if code == grpc.StatusCode.CANCELLED and "was cancelled" in result_or_details:
        return "cancelled"
    if code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.INTERNAL,
                grpc.StatusCode.RESOURCE_EXHAUSTED) and "failed:" in result_or_details:
        return "failed"
    if code == grpc.StatusCode.NOT_FOUND:
        return "forgotten"
    return None


def answered(job_id):
    """Whether a daemon's log shows the job's result sent to an AwaitProof or Prove call."""
    needle = f"event=job_done job={job_id} "
    for name in os.listdir(WORK):
        if name.endswith(".log"):
            with open(os.path.join(WORK, name), errors="replace") as f:
                if needle in f.read():
                    return True
    return False


def client(index):
    rng = random.Random(SEED * 1000 + index)
    md = bearer(tokens[index])
    jobs = []  # (job id, witnesses, kind)
    n = 0
    while not state.stop:
        n += 1
        kind = rng.choice(["good", "good", "good", "bad", "cancel", "disconnect", "prove"])
        key = rng.choice(["small", "small", "large"])
        witness = [f"c{index}-j{n}-p{p}-".encode() + rng.randbytes(rng.randint(16, 8 << 10))
                   for p in range(rng.randint(1, 3))]
        if kind == "bad":
            witness[0] = b"bad" + witness[0]
        request = pb.SubmitProofRequest(key_id=key, partitions=[pb.Witness(wtns=w)
                                                                for w in witness])
        channel, s = stub()
        try:
            if kind == "prove":
                # A Prove cut by its deadline: the daemon cancels the job it owned.
                code, r = harness.code_of(lambda: s.Prove(
                    pb.ProveRequest(job=request), metadata=md, timeout=rng.uniform(0.01, 0.5)))
                outcome = classify(code, r, witness)
                if outcome == "wrong-proof":
                    state.fail(f"client {index}: Prove returned another job's proof")
                state.count("prove-" + (outcome or str(code)))
                continue
            code, r = harness.code_of(lambda: s.SubmitProof(request, metadata=md, timeout=10))
            if code != grpc.StatusCode.OK:
                state.count("submit-" + code.name)
                time.sleep(0.2 if code == grpc.StatusCode.UNAVAILABLE else 0.01)
                continue
            accepted = [r.job_id, witness, kind, None]  # the outcome once it was fetched
            jobs.append(accepted)
            if kind == "cancel":
                time.sleep(rng.uniform(0, 0.05))
                harness.code_of(lambda: s.CancelProof(pb.CancelProofRequest(job_id=r.job_id),
                                                      metadata=md, timeout=10))
            elif kind == "disconnect":
                future = s.AwaitProof.future(pb.AwaitProofRequest(job_id=r.job_id,
                                                                  timeout_ms=60000),
                                             metadata=md, timeout=60)
                time.sleep(rng.uniform(0, 0.05))
                if not future.cancel():  # too late: the answer came, and counts as fetched
                    code, res = harness.code_of(future.result)
                    accepted[3] = classify(code, res, witness)
                channel.close()  # the client goes away
            elif rng.random() < 0.5:
                code, res = harness.code_of(lambda: s.AwaitProof(
                    pb.AwaitProofRequest(job_id=r.job_id, timeout_ms=5000), metadata=md,
                    timeout=10))
                outcome = classify(code, res, witness)
                if outcome in ("wrong-proof", "forgotten"):
                    state.fail(f"client {index}: job {r.job_id} ended {outcome}")
                accepted[3] = outcome
        finally:
            channel.close()
    # Every accepted job is final now or soon: await each one not fetched yet (a fetched result
    # is the client's; the daemon need not keep it across a restart).
    for job_id, witness, kind, fetched in jobs:
        if fetched is not None:
            state.count(f"{kind}-{fetched}")
            continue
        deadline = time.time() + 60 * SCALE + 60
        outcome = None
        while outcome is None and time.time() < deadline:
            channel, s = stub()
            code, r = harness.code_of(lambda: s.AwaitProof(
                pb.AwaitProofRequest(job_id=job_id, timeout_ms=10000), metadata=md, timeout=20))
            channel.close()
            outcome = classify(code, r, witness)
            if outcome is None:
                time.sleep(0.1)
        if outcome == "forgotten" and kind == "disconnect" and answered(job_id):
            # The answer was sent as the client went away (its cancel crossed the answer on
            # the wire): the daemon counted it as fetched, and the journal let it go.
            outcome = "answered-in-flight"
        state.count(f"{kind}-{outcome}")
        if outcome in (None, "forgotten", "wrong-proof"):
            state.fail(f"client {index}: job {job_id} ({kind}) ended {outcome}")
        elif kind == "good" and outcome == "failed":
            state.count("good-failed")  # a restart may fail a job, with its reason


def main():
    start_daemon("soak0")
    threading.Thread(target=monitor, daemon=True).start()
    workers = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for w in workers:
        w.start()
    began = time.time()
    for k in range(RESTARTS):
        time.sleep(max(0.0, began + RUN_S * (k + 1) / (RESTARTS + 1) - time.time()))
        print(f"soak: SIGKILL {k + 1} at {time.time() - began:.1f} s", flush=True)
        state.daemon.kill()
        time.sleep(0.5)
        start_daemon(f"soak{k + 1}")
    time.sleep(max(0.0, began + RUN_S - time.time()))
    state.stop = True
    for w in workers:
        w.join()
    print(f"soak: {dict(sorted(state.counts.items()))}", flush=True)
    print(f"soak: max RSS {state.max_rss_mb:.0f} MB, max threads {state.max_threads}", flush=True)
    if state.max_rss_mb > HOST_BUDGET_MB + 200:
        state.fail(f"RSS {state.max_rss_mb:.0f} MB over the budget {HOST_BUDGET_MB} MB + 200 MB")
    if state.max_threads >= 100:
        state.fail(f"{state.max_threads} threads")
    code = state.daemon.terminate(60)
    if code != 0:
        state.fail(f"the daemon exited {code} on SIGTERM")
    if state.violations:
        print(f"FAIL: {len(state.violations)} violations (seed {SEED})")
        sys.exit(1)
    print("PASS soak")


if __name__ == "__main__":
    try:
        main()
    finally:
        state.stop = True
        if state.daemon:
            state.daemon.kill()
