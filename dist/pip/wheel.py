#!/usr/bin/env python3
"""The wheels: one per release archive, holding that archive's vcc binary
as the package's script — the layout maturin's `bindings = "bin"` makes
(ruff and uv ship theirs so): `pip install vcc-contracts` puts `vcc` on the
environment's PATH.

They are packed from the archives dist/build.sh made, not compiled again:
the wheel's binary is the archive's, byte for byte, the one dist/test.sh
tests (maturin would build a second binary with its own compiler wrapper
and flags: all of wasmtime again, untested). Named vcc-contracts:
`vcc-cli` on PyPI is another project's (the Virtual Cell Challenge's
client). Entries are sorted and dated SOURCE_DATE_EPOCH (or 1980), so the
same archive gives the same wheel.

usage: wheel.py --archives DIR --out DIR
"""
import argparse
import base64
import hashlib
import io
import os
import pathlib
import re
import sys
import tarfile
import time
import zipfile

NAME = "vcc-contracts"
DIST = "vcc_contracts"

# Platform tags by Rust target. The Linux binaries are static (musl): they
# run on any glibc or musl system, as the manylinux and musllinux tags say.
PLATFORMS = {
    "x86_64-unknown-linux-musl": ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_2_x86_64"],
    "aarch64-unknown-linux-musl": ["manylinux_2_17_aarch64", "manylinux2014_aarch64", "musllinux_1_2_aarch64"],
    "x86_64-apple-darwin": ["macosx_10_12_x86_64"],
    "aarch64-apple-darwin": ["macosx_11_0_arm64"],
}

SUMMARY = ("vcc: check deliverables against a Verifiable Completion Contract, "
           "with sandboxed WebAssembly validators.")


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def wheel(archive, target, version, readme, out):
    with tarfile.open(archive) as t:
        member = t.getmember(f"vcc-{version}-{target}/vcc")
        binary = t.extractfile(member).read()
        licence = t.extractfile(f"vcc-{version}-{target}/LICENSE").read()
    plat = ".".join(PLATFORMS[target])
    info = f"{DIST}-{version}.dist-info"
    metadata = "".join([
        "Metadata-Version: 2.1\n",
        f"Name: {NAME}\n",
        f"Version: {version}\n",
        f"Summary: {SUMMARY}\n",
        "License: Apache-2.0\n",
        "Requires-Python: >=3.8\n",
        "Classifier: Environment :: Console\n",
        "Classifier: Programming Language :: Rust\n",
        "Classifier: Topic :: Software Development :: Quality Assurance\n",
        "Description-Content-Type: text/markdown\n",
        "\n",
        readme,
    ]).encode()
    wheel_file = "".join([
        "Wheel-Version: 1.0\n",
        "Generator: vcc dist/pip/wheel.py\n",
        "Root-Is-Purelib: false\n",
    ] + [f"Tag: py3-none-{p}\n" for p in PLATFORMS[target]]).encode()
    files = [
        (f"{DIST}-{version}.data/scripts/vcc", binary, 0o755),
        (f"{info}/LICENSE", licence, 0o644),
        (f"{info}/METADATA", metadata, 0o644),
        (f"{info}/WHEEL", wheel_file, 0o644),
    ]
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d, _ in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode(), 0o644))
    epoch = max(int(os.environ.get("SOURCE_DATE_EPOCH", "0")), 315532800)  # zip starts at 1980
    date = time.gmtime(epoch)[:6]
    path = out / f"{DIST}-{version}-py3-none-{plat}.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in files:  # the RECORD last, as the spec asks
            entry = zipfile.ZipInfo(name, date)
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--archives", required=True, type=pathlib.Path)
    p.add_argument("--out", required=True, type=pathlib.Path)
    args = p.parse_args()
    repo = pathlib.Path(__file__).resolve().parents[2]
    version = re.search(r'^version = "(.*)"$', (repo / "Cargo.toml").read_text(), re.M).group(1)
    readme = (repo / "README.md").read_text()
    args.out.mkdir(parents=True, exist_ok=True)
    made = 0
    for target in PLATFORMS:
        archive = args.archives / f"vcc-{version}-{target}.tar.gz"
        if archive.exists():
            print(wheel(archive, target, version, readme, args.out))
            made += 1
    if not made:
        sys.exit(f"wheel.py: no vcc-{version}-TARGET.tar.gz in {args.archives}")


if __name__ == "__main__":
    main()
