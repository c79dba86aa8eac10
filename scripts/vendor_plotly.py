"""Fetch the partial plotly.js bundle the HTML report embeds, and record its sha256.

Usage: python scripts/vendor_plotly.py

``npm pack`` downloads the pinned package from the npm registry (npm checks the tarball
against the registry's sha512). The minified bundle and its licence are copied to
``reports/vendor/``; ``reports/vendor/SHA256SUMS`` records their sha256, which a test
compares with the committed files. The cartesian bundle has every trace type the report
draws (scatter, bar, heatmap); its version matches the plotly.js of the Python package.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "plotly.js-cartesian-dist-min"
VERSION = "4.1.1"
FILES = {"package/plotly-cartesian.min.js": "plotly-cartesian.min.js", "package/LICENSE": "LICENSE"}
VENDOR = Path(__file__).resolve().parents[1] / "reports" / "vendor"


def main() -> int:
    """Fetch, unpack, write the files and their checksums."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["npm", "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", tmp, "--silent"],
            check=True,
            capture_output=True,
        )
        tarball = next(Path(tmp).glob("*.tgz"))
        VENDOR.mkdir(parents=True, exist_ok=True)
        sums = []
        with tarfile.open(tarball) as tar:
            for member, name in FILES.items():
                extracted = tar.extractfile(member)
                if extracted is None:
                    print(f"{member} is missing from {tarball.name}", file=sys.stderr)  # noqa: T201
                    return 1
                data = extracted.read()
                (VENDOR / name).write_bytes(data)
                sums.append(f"{hashlib.sha256(data).hexdigest()}  {name}")
    (VENDOR / "SHA256SUMS").write_text(
        f"# {PACKAGE}@{VERSION} from the npm registry\n" + "\n".join(sums) + "\n"
    )
    print("\n".join(sums))  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
