"""The analysis of the 5-mass string of Morgan & Qiao 2009, Table 1 (examples/string-5-table1.toml),
against the printed values, as crates/hooke/tests/analysis.rs checks them in Rust."""

import math

import numpy as np

import hooke

# Analog pole (re, im) in rad/s, digital w_d (rad/s), sigma_d (1/s), Hz, tau (s), as printed.
TABLE_1 = [
    ["-0.99983335", "2739.98210", "2764.60154", "-1.000000", "440.00000", "1.000000"],
    ["-3.73142886", "5293.23798", "5483.76570", "-3.733751", "872.76842", "0.2678272"],
    ["-7.46285773", "7485.76708", "8089.32370", "-7.472156", "1287.45585", "0.1338302"],
    ["-11.19428660", "9168.15257", "10447.41229", "-11.215224", "1662.75731", "0.0891645"],
    ["-13.92588212", "10225.74360", "12263.63276", "-13.958304", "1951.81777", "0.0716419"],
]


def matches_printed(value, text):
    """Agrees with the printed text to its last digit, allowing one unit there (the paper
    truncates)."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(value - float(text)) <= 10.0 ** -decimals * (1 + 1e-9)


def check_table_1(analysis):
    assert len(analysis) == 5 and analysis.damping == "modal" and analysis.is_stable
    columns = [
        analysis.pole.real,
        analysis.pole.imag,
        analysis.digital_angular_frequency,
        analysis.digital_decay_rate,
        analysis.digital_frequency_hz,
        analysis.time_constant,
    ]
    for mode, row in enumerate(TABLE_1):
        for column, text in zip(columns, row):
            assert matches_printed(column[mode], text), f"mode {mode + 1}: {column[mode]} vs printed {text}"
    assert analysis.region == ["complex"] * 5


def test_the_table_1_file_reproduces_the_printed_rows(examples):
    model = hooke.load(examples / "string-5-table1.toml")
    analysis = model.analyze("symplectic-euler", dt=1 / 6000)
    check_table_1(analysis)
    # Symplectic Euler on this string: stable up to the closed form of eq. (54) on the top mode.
    sigma, mu = analysis.pole[-1].real, analysis.pole[-1].imag
    gamma, w0_squared = -2 * sigma, sigma**2 + mu**2
    h_max = (-gamma + math.sqrt(gamma**2 + 4 * w0_squared)) / w0_squared
    assert math.isclose(analysis.largest_stable_step, h_max, rel_tol=1e-12)


def test_the_design_gives_eq_90_and_table_1():
    design = hooke.design_string(5, 440.0, 1.0, dt=1 / 6000)
    # Eq. 90, with the exact root of docs/errata.md.
    assert math.isclose(design.omega0, 5293.239300336853, rel_tol=1e-9)
    assert math.isclose(design.gamma, 7.4628577364145, rel_tol=1e-9)
    check_table_1(design.model.analyze("symplectic-euler", dt=1 / 6000))


def test_the_analysis_as_a_frame_has_one_row_per_mode(examples):
    frame = hooke.load(examples / "string-5-table1.toml").analyze().to_pandas()
    assert list(frame.index) == [1, 2, 3, 4, 5]
    assert np.allclose(frame["digital_frequency_hz"].iloc[0], 440.0, atol=1e-5)


def test_a_file_run_takes_its_scheme_rate_and_length(examples):
    model = hooke.load(examples / "string-5-table1.toml")
    sim = model.simulate()
    assert (sim.scheme, sim.rate) == ("symplectic-euler", 6000.0)
    run = sim.run(every=600)
    assert run.steps[-1] == 18_000 and np.isclose(run.times[-1], 3.0)  # [run] duration = 3 s
    # The pickup of the file: s.1's position.
    assert np.array_equal(run.pickups[0], run.position("s.1"))
