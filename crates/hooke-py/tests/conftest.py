"""Shared fixtures: the repository's examples and the `hooke` binary the CLI tests compare with."""

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"


def find_hooke_binary():
    """$HOOKE_BIN, else the release binary in $CARGO_TARGET_DIR or the repository's target/,
    else `hooke` on the PATH."""
    candidates = [os.environ.get("HOOKE_BIN")]
    for target in (os.environ.get("CARGO_TARGET_DIR"), REPO / "target"):
        if target:
            candidates.append(Path(target) / "release" / "hooke")
    candidates.append(shutil.which("hooke"))
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def hooke_bin():
    binary = find_hooke_binary()
    if binary is None:
        pytest.fail(
            "the `hooke` binary is needed to compare with the CLI: build it with "
            "`cargo build --release -p hooke-cli` or set HOOKE_BIN"
        )
    return binary


@pytest.fixture(scope="session")
def examples():
    return EXAMPLES
