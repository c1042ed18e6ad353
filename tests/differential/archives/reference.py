"""What each reference reader unpacks from each archive.

Usage: python reference.py ARCHIVE...  (the venv python of
tests/install-tools.sh; only the standard library, GNU tar and Debian's
unzip are used). Prints one JSON object: for each archive, for each reader
that reads its kind (by its first bytes, as std/package tells them), either
{"files": {path: "sha256:<hex>" | "link:<target>"}} — every file the
reader left on disk after unpacking into an empty folder, paths relative to
it — or {"error": "..."} when the reader refused it (a non-zero exit, an
exception). unzip's exit 1 is a warning with the files unpacked, so files.
"""

import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile


def text(s):
    """A name as JSON can carry it: bytes that are not UTF-8 (which the
    file system hands back as surrogates) become backslash escapes."""
    return s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def unpacked(folder):
    files = {}
    for here, dirs, names in os.walk(folder):
        for name in names + [d for d in dirs if os.path.islink(os.path.join(here, d))]:
            path = os.path.join(here, name)
            rel = text(os.path.relpath(path, folder).replace(os.sep, "/"))
            if os.path.islink(path):
                files[rel] = "link:" + text(os.readlink(path))
            else:
                with open(path, "rb") as f:
                    files[rel] = "sha256:" + hashlib.sha256(f.read()).hexdigest()
    return files


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True, errors="replace")
    return p.returncode, (p.stderr or p.stdout).strip()[:300]


def gnu_tar(archive, out):
    # -a is not needed: tar tells compression from the bytes when reading.
    code, err = run(["tar", "-xf", archive, "-C", out])
    if code != 0:
        raise RuntimeError(f"tar exit {code}: {err}")


def py_tarfile(archive, out):
    with tarfile.open(archive, "r:*") as t:
        t.extractall(out, filter="data")


def py_zipfile(archive, out):
    with zipfile.ZipFile(archive) as z:
        bad = z.testzip()
        if bad is not None:
            raise RuntimeError(f"bad CRC in {bad}")
        z.extractall(out)


def unzip(archive, out):
    code, err = run(["unzip", "-o", "-qq", archive, "-d", out])
    if code > 1:
        raise RuntimeError(f"unzip exit {code}: {err}")


TAR = {"gnu-tar": gnu_tar, "tarfile": py_tarfile}
ZIP = {"zipfile": py_zipfile, "unzip": unzip}


def readers(data):
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return ZIP
    if data[:2] == b"\x1f\x8b" or data[257:262] == b"ustar":
        return TAR
    return {**TAR, **ZIP}


def read(archive):
    with open(archive, "rb") as f:
        data = f.read()
    out = {}
    for name, reader in readers(data).items():
        with tempfile.TemporaryDirectory() as tmp:
            # One folder deeper, so a `..` entry that escapes stays ours.
            folder = os.path.join(tmp, "a", "b")
            os.makedirs(folder)
            try:
                reader(os.path.abspath(archive), folder)
                escaped = unpacked(os.path.join(tmp, "a"))
                files = unpacked(folder)
                if len(escaped) != len(files):
                    out[name] = {"error": "an entry escaped the folder", "files": files}
                else:
                    out[name] = {"files": files}
            except Exception as e:  # the reader refused it
                out[name] = {"error": text(f"{type(e).__name__}: {e}")[:300]}
    return out


if __name__ == "__main__":
    print(json.dumps({a: read(a) for a in sys.argv[1:]}, indent=1, sort_keys=True))
