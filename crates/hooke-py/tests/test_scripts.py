"""The measuring scripts' own checks: `scripts/sound-vs-recordings.py --self-test` measures
synthesised notes whose centroid, level above 2 kHz, T60s, tuning and onset are known in closed
form, and fails where a measure misses them (it needs numpy only; the comparison with recordings
itself needs fluidsynth and the soundfonts, and is run by hand: docs/sounds.md)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_sound_measures_recover_synthesised_notes():
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "sound-vs-recordings.py"), "--self-test"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "FAIL" not in run.stdout and run.stdout.count("ok ") >= 9, run.stdout
