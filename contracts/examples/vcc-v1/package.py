#!/usr/bin/env python3
"""Write the packages of the VCC v1 examples (deterministic zips with a
manifest of every file and its sha256), as a producer would before
delivery. Run it again after changing an example's documents."""

import hashlib
import json
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

PACKAGES = {
    "software": {
        "sdlaf-exports/package/pr_bundle.zip": [
            "sdlaf-exports/deliverables/requirements.md",
            "sdlaf-exports/deliverables/release_notes.md",
            "sdlaf-exports/deliverables/pr_metadata.json",
        ],
    },
    "research": {
        "sdlaf-exports/package/evidence_pack.zip": [
            "evidence/sources.md",
        ],
        "sdlaf-exports/package/final_research_bundle.zip": [
            "sdlaf-exports/deliverables/research_protocol.md",
            "sdlaf-exports/deliverables/landscape_catalog.csv",
            "sdlaf-exports/deliverables/landscape_catalog.json",
            "sdlaf-exports/deliverables/landscape_report.md",
            "sdlaf-exports/package/landscape_report.pdf",
            "sdlaf-exports/package/evidence_pack.zip",
        ],
    },
    "hardware": {
        "sdlaf-exports/package/hardware_packet.zip": [
            "sdlaf-exports/deliverables/requirements.md",
            "sdlaf-exports/deliverables/architecture.md",
            "sdlaf-exports/deliverables/bom.csv",
            "sdlaf-exports/deliverables/bom.json",
            "sdlaf-exports/deliverables/assembly.md",
            "sdlaf-exports/deliverables/test_plan.md",
            "sdlaf-exports/deliverables/risk_register.md",
        ],
    },
}


def write(root: Path, package: str, inputs: list) -> None:
    manifest = []
    target = root / package
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for name in inputs:
            data = (root / name).read_bytes()
            manifest.append({"path": name, "sha256": hashlib.sha256(data).hexdigest()})
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
        info = zipfile.ZipInfo("MANIFEST.json", date_time=(2026, 1, 1, 0, 0, 0))
        z.writestr(info, json.dumps({"files": manifest}, indent=2) + "\n")


def main() -> int:
    names = sys.argv[1:] or list(PACKAGES)
    for example in names:
        for package, inputs in PACKAGES[example].items():
            write(HERE / example, package, inputs)
            print(f"{example}/{package}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
