#!/usr/bin/env python3
"""A scripted agent for the `vcc converge` tests: what a coding agent does
in a loop, without a model. It reads what vcc hands it ($VCC_FEEDBACK,
$VCC_BUDGET_LEFT, $VCC_BRIEF) and works in the deliverable root ($VCC_ROOT), where
criterion X is satisfied by the file x.txt.

    fake_agent.py MODE [ARG...]

fix-one           write the file of the first failing MUST in the feedback
stuck             change nothing
flap A B          create A's file and remove B's, or the other way round
spend TOKENS COST report usage through $VCC_USAGE, change nothing
edit-contract     lower every MUST in the contract to MAY
weaken-failing    lower only the first failing MUST to SHOULD (on its own line)
exit N            change nothing, exit N
sleep SECONDS     touch $AGENT_LOG.started, then sleep

Every run appends what it was given to $AGENT_LOG (JSON lines), outside
the root.
"""
import json
import os
import sys
import time

mode, args = sys.argv[1], sys.argv[2:]
root = os.environ["VCC_ROOT"]
feedback_path = os.environ["VCC_FEEDBACK"]
with open(feedback_path) as f:
    feedback = json.load(f)
with open(os.environ["VCC_FEEDBACK_MD"]) as f:
    markdown = f.read()
brief = None
if os.environ.get("VCC_BRIEF"):
    with open(os.environ["VCC_BRIEF"]) as f:
        brief = f.read()
log = os.environ.get("AGENT_LOG")
if log:
    with open(log, "a") as f:
        f.write(json.dumps({
            "mode": mode,
            "iteration": os.environ["VCC_ITERATION"],
            "budget_left": json.loads(os.environ["VCC_BUDGET_LEFT"]),
            "feedback": feedback,
            "markdown": markdown,
            "brief": brief,
            "usage_file": os.environ["VCC_USAGE"],
        }) + "\n")


def path_of(criterion):
    return os.path.join(root, criterion.lower() + ".txt")


def write(path):
    with open(path, "w") as f:
        f.write("done\n")


if mode == "fix-one":
    if feedback["must"]:
        write(path_of(feedback["must"][0]["id"]))
elif mode == "stuck":
    pass
elif mode == "flap":
    a, b = path_of(args[0]), path_of(args[1])
    if os.path.exists(a):
        os.remove(a)
        write(b)
    else:
        write(a)
        if os.path.exists(b):
            os.remove(b)
elif mode == "spend":
    with open(os.environ["VCC_USAGE"], "a") as f:
        f.write(json.dumps({"tokens": int(args[0]), "cost": float(args[1])}) + "\n")
elif mode == "edit-contract":
    path = os.environ["VCC_CONTRACT"]
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("severity: must", "severity: may"))
elif mode == "weaken-failing":
    path = os.environ["VCC_CONTRACT"]
    target = "id: %s," % feedback["must"][0]["id"]
    with open(path) as f:
        lines = f.read().split("\n")
    with open(path, "w") as f:
        f.write("\n".join(
            l.replace("severity: must", "severity: should") if target in l else l
            for l in lines))
elif mode == "exit":
    sys.exit(int(args[0]))
elif mode == "sleep":
    open(log + ".started", "w").close()
    time.sleep(float(args[0]))
else:
    sys.exit("unknown mode " + mode)
