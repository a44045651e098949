"""The notebook of examples/python runs from top to bottom without an error."""

import pytest

from conftest import EXAMPLES

nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbformat, nbclient and ipykernel")
nbclient = pytest.importorskip("nbclient", reason="the notebook test needs nbclient")
pytest.importorskip("ipykernel", reason="the notebook test needs ipykernel")
pytest.importorskip("matplotlib", reason="the notebook draws with matplotlib")
pytest.importorskip("pandas", reason="the notebook's sweep makes a DataFrame")


def test_the_tour_notebook_executes():
    path = EXAMPLES / "python" / "tour.ipynb"
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # The Table 1 analysis shows as a table, and the figures were drawn.
    assert any("text/html" in o.get("data", {}) and "largest stable step" in o["data"]["text/html"] for o in outputs)
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 5
