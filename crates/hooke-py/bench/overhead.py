"""The binding's overhead (a benchmark, not a test): the guitar rendered through Python in
1024-frame blocks against `hooke render`, and a sweep's throughput per core.

    python crates/hooke-py/bench/overhead.py [--hooke PATH] [--seconds 10] [--designs 400]

Prints real-time factors (seconds of sound per second of wall time, best of 3) and designs
analysed per second per core.
"""

import argparse
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

import hooke

REPO = Path(__file__).resolve().parents[3]
FOLDER = REPO / "examples" / "instruments"
INSTRUMENT, SCORE = FOLDER / "guitar.toml", FOLDER / "guitar-20s.toml"


def python_blocks(seconds: float) -> float:
    """Real-time factor of `seconds` of the 20 s guitar score in 1024-frame blocks."""
    performance = hooke.perform(INSTRUMENT, SCORE)
    frames = int(seconds * performance.rate)
    started = time.perf_counter()
    done = 0
    while done < frames:
        done += performance.render(min(1024, frames - done)).shape[1]
    return seconds / (time.perf_counter() - started)


def cli(binary: Path) -> float:
    """The real-time factor `hooke render` reports for the whole 20 s score."""
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run(
            [str(binary), "render", str(INSTRUMENT), str(SCORE), "-o", os.path.join(folder, "g.wav")],
            check=True,
            capture_output=True,
            text=True,
        ).stderr
    return float(re.search(r"([0-9.]+)x real time", out).group(1))


def lowest_mode(tension, scheme, rate):
    string = hooke.Model.string(24, length=0.65, tension=tension, linear_density=1e-3, decay_time=2.0)
    return {"cents": float(string.analyze(scheme, rate=rate).cents_error[0])}


def sweep_rate(designs: int, backend: str, workers: int) -> float:
    """Designs per second per worker."""
    rates = [8000.0 * 1.01**i for i in range(designs // 4)]
    params = {"tension": [60.0, 100.0], "scheme": ["symplectic-euler", "velocity-verlet"], "rate": rates}
    started = time.perf_counter()
    table = hooke.sweep(lowest_mode, params, backend=backend, workers=workers)
    assert table["error"].isna().all()
    return len(table) / (time.perf_counter() - started) / workers


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hooke", type=Path, default=Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "release" / "hooke")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--designs", type=int, default=400)
    args = parser.parse_args()
    print(f"# {os.cpu_count()} cores; best of 3 each")
    blocks = max(python_blocks(args.seconds) for _ in range(3))
    native = max(cli(args.hooke) for _ in range(3))
    print(f"guitar, Python, 1024-frame blocks, {args.seconds:g} s: {blocks:8.1f}x real time")
    print(f"guitar, hooke render, 20 s:             {native:8.1f}x real time")
    print(f"binding overhead: {100 * (native / blocks - 1):+.1f} % wall time")
    serial = max(sweep_rate(args.designs, "serial", 1) for _ in range(3))
    pool = max(sweep_rate(args.designs, "process", os.cpu_count() or 1) for _ in range(3))
    print(f"sweep, {args.designs} string analyses, this process:  {serial:8.1f} designs/s/core")
    print(f"sweep, {args.designs} string analyses, process pool: {pool:8.1f} designs/s/core")


if __name__ == "__main__":
    main()
