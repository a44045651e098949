"""Parameter sweeps: a grid of parameters mapped to results, locally with a process pool or on
a Dask or Ray cluster, with every failure reported on its row."""

from __future__ import annotations

import itertools
import os
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import numpy as np

Params = Union[Mapping[str, Sequence[Any]], Sequence[Mapping[str, Any]]]


def grid(params: Params) -> List[Dict[str, Any]]:
    """The parameter sets of ``params``: a dict of lists is a grid (every combination, the last
    name varying fastest); a list of dicts is taken as it is."""
    if isinstance(params, Mapping):
        names = list(params)
        return [dict(zip(names, values)) for values in itertools.product(*(params[n] for n in names))]
    return [dict(row) for row in params]


class ModelMeasure:
    """The default measure of a model: what ``scheme`` at ``rate`` Hz (or ``dt`` s) does to its
    lowest mode. Returns frequency_hz (analog), digital_frequency_hz, cents_error,
    time_constant (s), stable (every mode) and largest_stable_step (s)."""

    def __init__(self, model) -> None:
        self.model = model

    def __call__(self, scheme: str = "symplectic-euler", rate: Optional[float] = None, dt: Optional[float] = None):
        analysis = self.model.analyze(scheme=scheme, rate=rate, dt=dt)
        return {
            "frequency_hz": float(analysis.frequency_hz[0]),
            "digital_frequency_hz": float(analysis.digital_frequency_hz[0]),
            "cents_error": float(analysis.cents_error[0]),
            "time_constant": float(analysis.time_constant[0]),
            "stable": analysis.is_stable,
            "largest_stable_step": analysis.largest_stable_step,
        }


def _evaluate(function: Callable[..., Any], rows: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Each row's results: the function's dict (or {'result': value}), or {'error': ...}."""
    results = []
    for row in rows:
        try:
            value = function(**row)
            results.append(dict(value) if isinstance(value, Mapping) else {"result": value})
        except Exception as error:  # reported on its row, never dropped
            results.append({"error": f"{type(error).__name__}: {error}"})
    return results


def _batches(rows: List[Dict[str, Any]], size: int) -> List[List[Dict[str, Any]]]:
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def _run_process(function, batches, workers):
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_evaluate, itertools.repeat(function), batches))


def _run_dask(function, batches, client):
    if client is None:
        from distributed import get_client

        client = get_client()
    remote = client.scatter(function, broadcast=True)
    futures = client.map(_evaluate, [remote] * len(batches), batches, pure=False)
    return client.gather(futures)


def _run_ray(function, batches):
    import ray

    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False)
    evaluate = ray.remote(_evaluate)
    shared = ray.put(function)
    return ray.get([evaluate.remote(shared, batch) for batch in batches])


def sweep(
    function: Any,
    params: Params,
    backend: str = "process",
    *,
    client: Any = None,
    workers: Optional[int] = None,
    batch: Optional[int] = None,
    as_frame: Optional[bool] = None,
):
    """Maps every parameter set of ``params`` (a dict of lists: the grid of every combination;
    or a list of dicts) to ``function(**row)``'s results.

    ``function`` returns a dict (its keys become columns) or a value (column ``result``). A
    ``hooke.Model`` is measured by ``ModelMeasure`` (parameters ``scheme``, ``rate`` or ``dt``).
    ``backend`` is 'process' (a local process pool of ``workers`` processes, default one per
    core), 'serial' (this process), 'dask' (the ``distributed.Client`` ``client``, default the
    current one) or 'ray' (the running Ray, started locally if none). Rows go in batches of
    ``batch`` parameter sets (default: about four batches per worker).

    Returns a pandas DataFrame (when pandas is installed and ``as_frame`` is not False) or a dict
    of numpy arrays, one row per parameter set in order: the parameters, the results, and
    ``error`` (None, or the exception's type and message for a row that failed).
    """
    from ._model import Model

    if isinstance(function, Model):
        function = ModelMeasure(function)
    rows = grid(params)
    workers = workers or os.cpu_count() or 1
    size = batch or max(1, -(-len(rows) // (4 * workers)))
    batches = _batches(rows, size)
    if backend == "serial":
        done = [_evaluate(function, b) for b in batches]
    elif backend == "process":
        done = _run_process(function, batches, workers)
    elif backend == "dask":
        done = _run_dask(function, batches, client)
    elif backend == "ray":
        done = _run_ray(function, batches)
    else:
        raise ValueError(f"backend: expected 'process', 'serial', 'dask' or 'ray', found {backend!r}")
    results = [result for part in done for result in part]
    return _table(rows, results, as_frame)


def _table(rows: List[Dict[str, Any]], results: List[Dict[str, Any]], as_frame: Optional[bool]):
    names: List[str] = []
    for record in itertools.chain(rows, results):
        names.extend(k for k in record if k not in names and k != "error")
    names.append("error")
    merged = [{**row, **result} for row, result in zip(rows, results)]
    columns = {name: [record.get(name) for record in merged] for name in names}
    if as_frame is not False:
        try:
            import pandas

            return pandas.DataFrame(columns)
        except ImportError:
            if as_frame:
                raise
    return {name: _array(values) for name, values in columns.items()}


def _array(values: Iterable[Any]) -> np.ndarray:
    values = list(values)
    if any(v is None for v in values):
        return np.array(values, dtype=object)
    return np.array(values)
