"""hooke.fit: a string from a recording of one note (docs/fit.md). The recordings here are
synthesised with numpy from a stiff string's closed forms, independently of the library: the
fit must find their fundamental, inharmonicity, loss law and pluck again, and its instrument
file must play in tune."""

import subprocess

import numpy as np
import pytest

import hooke

RATE = 44100.0


def xi(f, f0, b):
    """The squared frequency the partial at f would have without stiffness, Hz^2."""
    c = b / f0**2
    return 2 * f**2 / (1 + np.sqrt(1 + 4 * c * f**2))


def release(x):
    """|R(f T)| of a release over T (a half cosine): |cos(pi x) / (1 - 4 x^2)|, pi / 4 at x = 1/2."""
    x = np.asarray(x, dtype=float)
    half = np.isclose(x, 0.5)
    out = np.abs(np.cos(np.pi * x) / np.where(half, 1.0, 1 - 4 * x**2))
    return np.where(half, np.pi / 4, out)


def string_note(f0, b, sigma0, sigma1, position, let_go, seconds=4.0, onset=0.05, noise_db=None):
    """A plucked stiff string's partials up to 10 kHz: f_n = n f0 sqrt(1 + B n^2), decaying at
    sigma0 + sigma1 xi(f_n), with amplitudes sin(n pi p) R(f_n T) / n: the force on the bridge of a
    string let go over T s."""
    t = np.arange(int(seconds * RATE)) / RATE
    u = np.clip(t - onset, 0.0, None)
    signal = np.zeros_like(t)
    n = 1
    while True:
        f = n * f0 * np.sqrt(1 + b * n * n)
        if f > 10_000:
            break
        amplitude = np.sin(n * np.pi * position) * release(f * let_go) / n
        sigma = sigma0 + sigma1 * xi(f, f0, b)
        signal += amplitude * np.exp(-sigma * u) * np.sin(2 * np.pi * f * u)
        n += 1
    signal *= 0.5 / np.abs(signal).max()
    if noise_db is not None:
        first = signal[int(onset * RATE) : int((onset + 1) * RATE)]
        rms = np.sqrt(np.mean(first**2))
        signal += np.random.default_rng(7).normal(0.0, rms * 10 ** (-noise_db / 20), signal.shape)
    return signal


@pytest.mark.parametrize("noise_db", [None, 40.0])
@pytest.mark.parametrize(
    "f0,b,position", [(82.406889, 1e-4, 0.2), (196.0, 3e-4, 0.13), (110.0, 0.0, 0.27)]
)
def test_fit_finds_a_synthesised_string_again(f0, b, position, noise_db):
    sigma0, sigma1, let_go = 0.3, 6e-7, 4e-4
    found = hooke.fit(string_note(f0, b, sigma0, sigma1, position, let_go, noise_db=noise_db), RATE)
    string = found.strings[0]
    assert abs(1200 * np.log2(string["fundamental_hz"] / f0)) < 0.1
    if b > 0:
        assert string["inharmonicity"] == pytest.approx(b, rel=0.02)
    else:
        assert string["inharmonicity"] < 2e-7
    for f in (f0, 2000.0):
        law = sigma0 + sigma1 * xi(f, f0, b)
        fitted = (
            string["constant_loss"]
            + string["linear_loss"] * f
            + string["quadratic_loss"] * xi(f, string["fundamental_hz"], string["inharmonicity"])
        )
        assert fitted == pytest.approx(law, rel=0.02)
    assert string["pluck_position"] == pytest.approx(position, abs=0.02)
    assert string["pluck_release"] == pytest.approx(let_go, rel=0.1)
    assert string["onset_s"] == pytest.approx(0.05, abs=2e-3)


def test_the_fitted_instrument_plays_the_note_in_tune(tmp_path):
    f0 = 146.832384
    found = hooke.fit(string_note(f0, 5e-5, 0.3, 6e-7, 0.2, 1e-3), RATE)
    instrument = found.save(tmp_path / "fitted.toml")
    name = found.strings[0]["name"]
    assert name == "D3"
    score = tmp_path / "note.toml"
    score.write_text(
        f'[score]\nduration = 2.0\n[[pluck]]\ntime = 0.0\npart = "{name}"\nposition = 0.8\nshape = "pulse"\n'
        "amplitude = 0.3\nwidth = 1e-3\n"
    )
    audio = hooke.render(instrument, score)[0]
    segment = audio[int(0.2 * RATE) : int(0.2 * RATE) + 65536] * np.hanning(65536)
    spectrum = np.abs(np.fft.rfft(segment, 1 << 20))
    low, high = int(0.9 * f0 * (1 << 20) / RATE), int(1.1 * f0 * (1 << 20) / RATE)
    k = low + int(np.argmax(spectrum[low:high]))
    a, b_, c = np.log(spectrum[k - 1 : k + 2])
    peak = (k + 0.5 * (a - c) / (a - 2 * b_ + c)) * RATE / (1 << 20)
    # The first partial of a stiff string: f0 sqrt(1 + B).
    assert abs(1200 * np.log2(peak / (found.strings[0]["fundamental_hz"] * np.sqrt(1 + found.strings[0]["inharmonicity"])))) < 1.0


def test_the_cli_and_python_write_the_same_instrument(hooke_bin, tmp_path):
    note = string_note(110.0, 1e-4, 0.3, 6e-7, 0.2, 1e-3)
    wav = tmp_path / "note.wav"
    import wave

    with wave.open(str(wav), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(int(RATE))
        out.writeframes((np.round(note * 32767)).astype("<i2").tobytes())
    subprocess.run([str(hooke_bin), "fit", str(wav), "--as", "string", "-o", str(tmp_path / "cli.toml")], check=True, capture_output=True)
    quantised = np.round(note * 32767) / 32768
    found = hooke.fit(quantised, RATE)
    strip = lambda text: [line for line in text.splitlines() if not line.startswith("#")]
    assert strip((tmp_path / "cli.toml").read_text()) == strip(found.instrument)


@pytest.mark.parametrize(
    "samples,rate,message",
    [
        (np.zeros(44100), RATE, "silence"),
        (np.clip(4 * string_note(110.0, 0.0, 0.3, 6e-7, 0.2, 1e-3), -1, 1), RATE, "clipped"),
        (string_note(110.0, 0.0, 0.3, 6e-7, 0.2, 1e-3)[:8000], RATE, "after the note's onset"),
        (string_note(110.0, 0.0, 0.3, 6e-7, 0.2, 1e-3)[::8], RATE / 8, "sample rate of at least 8000"),
    ],
)
def test_recordings_it_cannot_fit_are_refused_saying_what_was_found(samples, rate, message):
    with pytest.raises(ValueError, match=message):
        hooke.fit(samples, rate)


def test_a_struck_bar_is_fitted_as_a_marimba_key(tmp_path):
    """Two damped modes synthesised with numpy, 4.0 apart: the fit finds them and their decays."""
    t = np.arange(int(2.0 * RATE)) / RATE
    u = np.clip(t - 0.05, 0.0, None)
    f1, ratio, tau1, tau2 = 392.0, 3.9, 0.5, 0.25
    bar = np.sin(2 * np.pi * f1 * u) * np.exp(-u / tau1) + 0.5 * np.sin(2 * np.pi * ratio * f1 * u) * np.exp(-u / tau2)
    bar *= 0.5 / np.abs(bar).max()
    found = hooke.fit(bar, RATE, kind="bar")
    assert abs(1200 * np.log2(found.bar["frequency_hz"] / f1)) < 0.1
    assert found.bar["ratio"] == pytest.approx(ratio, rel=1e-3)
    assert found.bar["decay"] == pytest.approx(tau1, rel=0.02)
    assert found.bar["high_decay"] == pytest.approx(tau2, rel=0.02)
    assert found.bar["name"] == "G4" and "[marimba]" in found.instrument
    score = tmp_path / "strike.toml"
    score.write_text('[score]\nduration = 1.0\n[[strike]]\ntime = 0.0\npart = "G4"\nvelocity = 1.0\n')
    audio = hooke.render(found.save(tmp_path / "bar.toml"), score)
    assert audio.shape[1] == int(RATE) and np.abs(audio).max() > 0


def test_a_struck_bell_is_fitted_as_a_bell_of_one_key(tmp_path):
    """Five damped modes synthesised with numpy at a bell's ratios (hum, prime, tierce, quint,
    nominal; the nominal loudest): the fit finds each with its decay and level, its strike note
    half the nominal's, and the bell it writes plays."""
    t = np.arange(int(3.0 * RATE)) / RATE
    u = np.clip(t - 0.05, 0.0, None)
    strike = 440.0
    modes = [(0.5, 2.0, 0.3), (1.0, 1.5, 0.4), (1.2, 1.2, 0.6), (1.5, 0.8, 0.3), (2.0, 1.0, 1.0)]
    bell = sum(a * np.sin(2 * np.pi * r * strike * u) * np.exp(-u / tau) for r, tau, a in modes)
    bell *= 0.5 / np.abs(bell).max()
    found = hooke.fit(bell, RATE, kind="bell")
    assert abs(1200 * np.log2(found.bell["strike_hz"] / strike)) < 0.1
    assert found.bell["name"] == "A4" and "[bell]" in found.instrument
    assert len(found.bell["modes"]) == len(modes)
    loudest = max(m["amplitude"] for m in found.bell["modes"])
    for mode, (r, tau, a) in zip(found.bell["modes"], modes):
        assert abs(1200 * np.log2(mode["frequency_hz"] / (r * strike))) < 0.1
        assert 1.0 / mode["decay_rate"] == pytest.approx(tau, rel=0.02)
        assert mode["amplitude"] / loudest == pytest.approx(a, rel=0.05)
    score = tmp_path / "strike.toml"
    score.write_text('[score]\nduration = 1.0\n[[strike]]\ntime = 0.0\npart = "A4"\nvelocity = 1.0\n')
    audio = hooke.render(found.save(tmp_path / "bell.toml"), score)
    assert audio.shape[1] == int(RATE) and np.abs(audio).max() > 0


def test_a_struck_plate_is_fitted_as_bell_plates_of_one_key(tmp_path):
    """Bell plates rendered by hooke (one key, an 11 x 8 lattice), fitted back: the lattice, the
    first mode and a file that plays."""
    instrument = tmp_path / "plate.toml"
    instrument.write_text('[plates]\nkeys = ["A4"]\ncolumns = 11\nrows = 8\nstereo = false\n[render]\nrate = 44100\n')
    score = tmp_path / "strike.toml"
    score.write_text('[score]\nduration = 3.0\n[[strike]]\ntime = 0.1\npart = "A4"\nvelocity = 1.0\n')
    struck = hooke.render(instrument, score)
    found = hooke.fit(struck, RATE, kind="plate")
    assert (found.plate["columns"], found.plate["rows"]) == (11, 8)
    assert abs(1200 * np.log2(found.plate["frequency_hz"] / 440.0)) < 0.1
    assert found.plate["name"] == "A4" and "[plates]" in found.instrument
    audio = hooke.render(found.save(tmp_path / "fitted.toml"), score)
    assert np.abs(audio).max() > 0
