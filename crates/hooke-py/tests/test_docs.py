"""The tour of docs/python.md runs as written (from the repository's root)."""

import re

import pytest

from conftest import REPO

pytest.importorskip("pandas", reason="the tour shows DataFrames")
pytest.importorskip("IPython", reason="the tour shows an audio player")


def test_the_tour_runs(monkeypatch):
    text = (REPO / "docs" / "python.md").read_text()
    tour = text.split("## A tour")[1].split("## Sweeps")[0]
    blocks = re.findall(r"```python\n(.*?)```", tour, flags=re.S)
    assert len(blocks) >= 4
    monkeypatch.chdir(REPO)
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), namespace)
    # What the tour's comments promise.
    assert namespace["analysis"].is_stable
    assert abs(namespace["analysis"].largest_stable_step - 7.5e-05) < 5e-7
    assert namespace["run"].positions.shape == (22051, 40, 1)
    assert abs(namespace["design"].omega0 - 5293.2393) < 1e-4
