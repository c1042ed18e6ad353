#!/usr/bin/env python3
"""An orchestrating agent for the delegation tests: run by `vcc converge` as
its command, it delegates sub-contracts to child loops (nested `vcc
converge`, which take their budgets from $VCC_BUDGET_FILE).

    orchestrator.py parallel VCC CHILDREN_DIR OUT_DIR
        reports 500 tokens of its own, then starts children a, b and c at
        once, each `--max-tokens 3000`: a and b write their file and report
        1,000 tokens; c tries to overspend and writes nothing. Once the
        three have joined the pool it starts d, which asks for 5,000 tokens:
        more than can be granted. It waits for all, then writes c.txt
        itself (it takes the failed child's work over).
    orchestrator.py exhaust VCC CHILDREN_DIR OUT_DIR
        reports 500 tokens, starts one child that asks for no budget of its
        own, reports 1,000 tokens and then holds; once the child's spending
        is in the pool, spends 1,000 tokens of its own every 0.2 s.

    orchestrator.py hold-lock VCC CHILDREN_DIR OUT_DIR
        the adversary: takes the pool's lock ($VCC_BUDGET_FILE.lock, which
        it can open like any child) and keeps it, spending nothing; says so
        in OUT_DIR/locked.

    orchestrator.py forge-grant VCC CHILDREN_DIR OUT_DIR
        the adversary: writes a.txt, b.txt and c.txt, then, under the
        pool's lock, adds a child that never asked the parent for anything:
        granted 100,000 tokens, ended, having spent 50,000; says so in
        OUT_DIR/forged.

    orchestrator.py worker FILE TOKENS [overspend|hold]
        (the children's command) writes $VCC_ROOT/FILE unless FILE is -,
        reports TOKENS through $VCC_USAGE; `overspend`: once vcc has seen
        that (its own pool, $VCC_BUDGET_FILE), reports what is left of its
        budget ($VCC_BUDGET_LEFT), and once that is seen, 1,000 more every
        0.2 s; `hold`: sleeps a minute.

Each child's converge report is written to OUT_DIR/child-X.json, its exit
code to OUT_DIR/child-X.code; what the pool said, to OUT_DIR/pool-*.json.
"""
import fcntl
import json
import os
import subprocess
import sys
import time


def report_usage(tokens):
    with open(os.environ["VCC_USAGE"], "a") as f:
        f.write(json.dumps({"tokens": tokens}) + "\n")


def pool():
    with open(os.environ["VCC_BUDGET_FILE"]) as f:
        return json.load(f)


def child(vcc, children, out, name, flags, worker_args):
    return subprocess.Popen(
        [vcc, "converge", os.path.join(children, f"child-{name}.yaml"),
         "--dir", os.environ["VCC_ROOT"], "--format", "json",
         "--report", os.path.join(out, f"child-{name}.json"), *flags,
         "--", sys.executable, os.path.abspath(__file__), "worker", *worker_args],
        stdout=subprocess.DEVNULL,
    )


def wait_all(out, procs):
    for name, p in procs.items():
        code = p.wait()
        with open(os.path.join(out, f"child-{name}.code"), "w") as f:
            f.write(str(code))


def wait_for(what, check):
    deadline = time.time() + 60
    while not check():
        if time.time() > deadline:
            sys.exit(f"orchestrator: gave up waiting for {what}")
        time.sleep(0.05)


def save(out, name):
    with open(os.path.join(out, name), "w") as f:
        json.dump(pool(), f)


def parallel(vcc, children, out):
    report_usage(500)
    save(out, "pool-start.json")
    procs = {
        "a": child(vcc, children, out, "a", ["--max-tokens", "3000"], ["a.txt", "1000"]),
        "b": child(vcc, children, out, "b", ["--max-tokens", "3000"], ["b.txt", "1000"]),
        "c": child(vcc, children, out, "c", ["--max-tokens", "3000"], ["-", "1000", "overspend"]),
    }
    wait_for("three children", lambda: len(pool()["children"]) >= 3)
    save(out, "pool-joined.json")
    procs["d"] = child(vcc, children, out, "d", ["--max-tokens", "5000"], ["d.txt", "1"])
    wait_all(out, procs)
    save(out, "pool-end.json")
    with open(os.path.join(os.environ["VCC_ROOT"], "c.txt"), "w") as f:
        f.write("done by the orchestrator\n")


def exhaust(vcc, children, out):
    report_usage(500)
    wait_for("its own usage in the pool", lambda: pool()["own"]["tokens"] >= 500)
    procs = {"a": child(vcc, children, out, "a", [], ["a.txt", "1000", "hold"])}
    wait_for("the child's spending", lambda: any(
        c["spent"]["tokens"] >= 1000 for c in pool()["children"]))
    while True:
        report_usage(1000)
        time.sleep(0.2)


def hold_lock(vcc, children, out):
    with open(os.environ["VCC_BUDGET_FILE"] + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(os.path.join(out, "locked"), "w") as f:
            f.write("held\n")
        time.sleep(600)


def forge_grant(vcc, children, out):
    for name in "abc":
        with open(os.path.join(os.environ["VCC_ROOT"], f"{name}.txt"), "w") as f:
            f.write("done\n")
    path = os.environ["VCC_BUDGET_FILE"]
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        forged = pool()
        forged["children"].append({
            "id": 1, "pid": os.getpid(), "contract": "forged.yaml",
            "iteration": forged["iteration"], "started_at": "2026-01-01T00:00:00Z",
            "granted": {"tokens": 100000}, "spent": {"tokens": 50000, "cost": 0.0},
            "state": "ended", "outcome": "FULFILLED",
        })
        with open(path + ".forged", "w") as f:
            json.dump(forged, f)
        os.replace(path + ".forged", path)
    with open(os.path.join(out, "forged"), "w") as f:
        f.write("written\n")


def worker(file, tokens, mode):
    if file != "-":
        with open(os.path.join(os.environ["VCC_ROOT"], file), "w") as f:
            f.write("done\n")
    report_usage(int(tokens))
    if mode == "hold":
        time.sleep(60)
    elif mode == "overspend":
        # Each report waits until vcc has seen the one before (its loop
        # writes what its command spent into its own pool at each look), so
        # no two land in one look, however loaded the machine.
        seen(int(tokens))
        left = json.loads(os.environ["VCC_BUDGET_LEFT"])["tokens"]
        report_usage(left - int(tokens))
        seen(left)
        # Its budget is spent: vcc stops it at that very look, right after
        # writing the pool. Were it not stopped, it would go on.
        time.sleep(5)
        while True:
            report_usage(1000)
            time.sleep(0.2)


def seen(tokens):
    wait_for(f"vcc to see {tokens} tokens", lambda: pool()["own"]["tokens"] >= tokens)


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "worker":
        worker(args[0], args[1], args[2] if len(args) > 2 else None)
    else:
        {"parallel": parallel, "exhaust": exhaust, "hold-lock": hold_lock,
         "forge-grant": forge_grant}[mode](*args)
