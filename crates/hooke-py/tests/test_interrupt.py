"""Ctrl-C stops a long run: the GIL is released while stepping and Python's signal handlers run
between blocks."""

import os
import signal
import subprocess
import sys
import time

import pytest

# The child installs Python's own Ctrl-C handler: a process started in the background by a
# non-interactive shell (as CI may start the tests) inherits SIGINT ignored, and Python then
# leaves it ignored.
PROGRAM = """
import signal, hooke
signal.signal(signal.SIGINT, signal.default_int_handler)
model = hooke.Model.string(400, mass=1e-3, stiffness=1e5, pluck=(0.3, 1e-3))
sim = model.simulate(scheme="{scheme}", rate=44100, pickups=["s.5"])
print("running", flush=True)
{call}
print("finished", flush=True)
"""

# Long, but within the 4 GiB one call may return (docs/python.md, "Limits"): 4411 rows, and
# 2^28 float32 frames (1 GiB).
CALLS = {
    "run": "sim.run(seconds=1e5, every=10**6)",
    "render": "sim.render(2**28)",
}


@pytest.mark.parametrize(
    "method,scheme", [("run", "symplectic-euler"), ("run", "midpoint"), ("render", "symplectic-euler")]
)
def test_ctrl_c_interrupts_a_long_run_within_half_a_second(method, scheme):
    code = PROGRAM.format(scheme=scheme, call=CALLS[method])
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "running"
        time.sleep(1.0)  # well inside the run
        assert child.poll() is None, child.stderr.read()
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        child.wait(timeout=10)
        elapsed = time.monotonic() - sent
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
    stderr = child.stderr.read()
    assert "KeyboardInterrupt" in stderr, stderr
    assert child.returncode != 0
    assert elapsed < 0.5, f"the run stopped {elapsed:.3f} s after SIGINT"
