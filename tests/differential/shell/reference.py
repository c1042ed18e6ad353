"""Whether bash runs `git push` for each transcript's `Bash` command.

Usage: python reference.py TRANSCRIPT...  Prints one JSON object: for each
transcript, {"bash": {"ran": true | false}} — true when bash (`bash
--norc --noprofile -c COMMAND`, in a scratch folder, stdin empty, 10 s at
most) ran a `git` whose first argument is `push`. `git` is a stub that
logs its arguments: first on PATH, and at `$VCC_STUB/git`. A command
that times out is judged by what it logged before.
"""

import json
import os
import subprocess
import sys
import tempfile

STUB = "#!/bin/sh\necho \"$*\" >> \"$GITLOG\"\n"


def ran_git_push(command, scratch):
    stub = os.path.join(scratch, "bin")
    log = os.path.join(scratch, "git.log")
    if os.path.exists(log):
        os.unlink(log)
    env = dict(os.environ, PATH=stub + os.pathsep + os.environ.get("PATH", ""),
               GITLOG=log, VCC_STUB=stub)
    try:
        subprocess.run(["bash", "--norc", "--noprofile", "-c", command], env=env,
                       cwd=scratch, stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        pass
    if not os.path.exists(log):
        return False
    with open(log, encoding="utf-8", errors="replace") as f:
        return any(line.split(" ", 1)[0].strip() == "push" for line in f)


def main():
    out = {}
    with tempfile.TemporaryDirectory() as scratch:
        os.makedirs(os.path.join(scratch, "bin"))
        git = os.path.join(scratch, "bin", "git")
        with open(git, "w", encoding="utf-8") as f:
            f.write(STUB)
        os.chmod(git, 0o755)
        for path in sys.argv[1:]:
            with open(path, encoding="utf-8") as f:
                command = json.load(f)[0]["arguments"]["command"]
            out[path] = {"bash": {"ran": ran_git_push(command, scratch)}}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
