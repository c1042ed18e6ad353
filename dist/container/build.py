#!/usr/bin/env python3
"""The container image: an OCI image layout holding a multi-arch index
(linux/amd64, linux/arm64), each image FROM scratch with one layer:

    /usr/local/bin/vcc                     the static musl binary
    /etc/ssl/certs/ca-certificates.crt     CA certificates (registries, judges over HTTPS)
    /etc/passwd, /etc/group                user 65534 "nobody", whom vcc runs as
    /tmp (1777), /work                     the cache; where deliverables are mounted

Written byte for byte here (no daemon, no Dockerfile): tar members sorted,
owner 0, mtime SOURCE_DATE_EPOCH, gzip without a name or time, so the same
binaries give the same digests. skopeo pushes the layout (`skopeo copy
--all oci:DIR docker://...`), podman or docker runs it:

    docker run --rm -v "$PWD:/work:ro" IMAGE check contract.yaml

usage: build.py --out LAYOUT --version V --ca FILE ARCH=BINARY...
"""

import argparse
import gzip
import hashlib
import io
import json
import os
import pathlib
import tarfile
import time

MEDIA = {
    "index": "application/vnd.oci.image.index.v1+json",
    "manifest": "application/vnd.oci.image.manifest.v1+json",
    "config": "application/vnd.oci.image.config.v1+json",
    "layer": "application/vnd.oci.image.layer.v1.tar+gzip",
}


def blob(layout: pathlib.Path, data: bytes, media: str, **extra) -> dict:
    digest = hashlib.sha256(data).hexdigest()
    path = layout / "blobs" / "sha256" / digest
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return {"mediaType": media, "digest": f"sha256:{digest}", "size": len(data), **extra}


def layer(binary: bytes, ca: bytes, mtime: int) -> tuple[bytes, str]:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        def add(name: str, data: bytes | None, mode: int) -> None:
            info = tarfile.TarInfo(name)
            info.mtime = mtime
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mode = mode
            if data is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))

        for d in ["etc", "etc/ssl", "etc/ssl/certs", "tmp", "usr", "usr/local", "usr/local/bin", "work"]:
            add(d, None, 0o1777 if d == "tmp" else 0o755)
        add("etc/group", b"root:x:0:\nnogroup:x:65534:\n", 0o644)
        add("etc/passwd", b"root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/tmp:/sbin/nologin\n", 0o644)
        add("etc/ssl/certs/ca-certificates.crt", ca, 0o644)
        add("usr/local/bin/vcc", binary, 0o755)
    plain = raw.getvalue()
    # The config lists the uncompressed digest (diff_id); the manifest the blob's.
    zipped = gzip.compress(plain, compresslevel=9, mtime=0)
    return zipped, "sha256:" + hashlib.sha256(plain).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--version", required=True)
    ap.add_argument("--ca", required=True, type=pathlib.Path)
    ap.add_argument("images", nargs="+", metavar="ARCH=BINARY")
    args = ap.parse_args()
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime))
    layout = args.out
    layout.mkdir(parents=True, exist_ok=True)
    (layout / "oci-layout").write_text('{"imageLayoutVersion":"1.0.0"}')
    ca = args.ca.read_bytes()
    manifests = []
    for spec in args.images:
        arch, _, path = spec.partition("=")
        if arch not in ("amd64", "arm64") or not path:
            ap.error(f"{spec}: expected amd64=BINARY or arm64=BINARY")
        zipped, diff_id = layer(pathlib.Path(path).read_bytes(), ca, mtime)
        layer_desc = blob(layout, zipped, MEDIA["layer"])
        config = {
            "created": created,
            "architecture": arch,
            "os": "linux",
            "config": {
                "User": "65534:65534",
                "Entrypoint": ["/usr/local/bin/vcc"],
                "Cmd": ["--help"],
                "WorkingDir": "/work",
                "Env": [
                    "PATH=/usr/local/bin",
                    "HOME=/tmp",
                    "VCC_CACHE_DIR=/tmp/vcc-cache",
                    "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
                ],
                "Labels": {
                    "org.opencontainers.image.title": "vcc",
                    "org.opencontainers.image.version": args.version,
                    "org.opencontainers.image.licenses": "Apache-2.0",
                },
            },
            "rootfs": {"type": "layers", "diff_ids": [diff_id]},
            "history": [{"created": created, "created_by": "dist/container/build.py"}],
        }
        config_desc = blob(layout, json.dumps(config, sort_keys=True).encode(), MEDIA["config"])
        manifest = {
            "schemaVersion": 2,
            "mediaType": MEDIA["manifest"],
            "config": config_desc,
            "layers": [layer_desc],
            "annotations": {"org.opencontainers.image.version": args.version},
        }
        manifests.append(
            blob(
                layout,
                json.dumps(manifest, sort_keys=True).encode(),
                MEDIA["manifest"],
                platform={"architecture": arch, "os": "linux"},
            )
        )
    index = {"schemaVersion": 2, "mediaType": MEDIA["index"], "manifests": manifests}
    index_desc = blob(
        layout,
        json.dumps(index, sort_keys=True).encode(),
        MEDIA["index"],
        annotations={"org.opencontainers.image.ref.name": args.version},
    )
    (layout / "index.json").write_text(
        json.dumps({"schemaVersion": 2, "mediaType": MEDIA["index"], "manifests": [index_desc]}, sort_keys=True)
    )
    print(index_desc["digest"])


if __name__ == "__main__":
    main()
