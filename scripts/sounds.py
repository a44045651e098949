#!/usr/bin/env python3
"""Renders the example sounds of docs/sounds.md, draws their spectrograms into docs/sounds/ and
prints the figures the page quotes (what each spectrogram shows, measured).

Run from the repository root after `cargo build --release -p hooke-cli` (or name another build of
`hooke` in the environment variable HOOKE); it needs numpy and
matplotlib (`pip install numpy matplotlib`). The WAVs go to target/sounds/ (not committed: they
are rebuilt by this script), the pictures to docs/sounds/.
"""

import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

HOOKE = Path(os.environ.get("HOOKE", "target/release/hooke"))
WAVS = Path("target/sounds")
PICTURES = Path("docs/sounds")

# name, command arguments after `hooke` (the WAV's path follows them), title
SOUNDS = [
    ("guitar", ["render", "examples/instruments/guitar.toml", "examples/instruments/guitar-phrase.toml", "-o"],
     "guitar.toml, guitar-phrase.toml"),
    ("acoustic-guitar", ["render", "examples/instruments/acoustic-guitar.toml",
                         "examples/instruments/guitar-phrase.toml", "-o"],
     "acoustic-guitar.toml: the same strings on a body"),
    ("piano", ["render", "examples/instruments/piano.toml", "examples/instruments/piano-phrase.toml", "-o"],
     "piano.toml, piano-phrase.toml"),
    ("marimba", ["render", "examples/instruments/marimba.toml", "examples/instruments/marimba-run.toml", "-o"],
     "marimba.toml, marimba-run.toml"),
    ("marimba-bar", ["run", "examples/marimba-bar.toml", "--wav"], "marimba-bar.toml: an undercut bar struck"),
    ("plates", ["render", "examples/instruments/plates.toml", "examples/instruments/plates-peal.toml", "-o"],
     "plates.toml, plates-peal.toml"),
    ("sitar", ["render", "examples/instruments/sitar.toml", "examples/instruments/sitar-score.toml", "-o"],
     "sitar.toml, sitar-score.toml"),
]


def read_wav(path):
    """The samples of a 32-bit float or 16-bit WAV, channels averaged, and its rate."""
    data = path.read_bytes()
    at, rate, channels, bits, samples = 12, 0, 1, 32, None
    while at + 8 <= len(data):
        kind, size = data[at:at + 4], struct.unpack("<I", data[at + 4:at + 8])[0]
        if kind == b"fmt ":
            _, channels, rate = struct.unpack("<HHI", data[at + 8:at + 16])
            bits = struct.unpack("<H", data[at + 22:at + 24])[0]
        elif kind == b"data":
            samples = data[at + 8:at + 8 + size]
        at += 8 + size + (size & 1)
    values = np.frombuffer(samples, dtype=np.float32 if bits == 32 else np.int16).astype(float)
    return values.reshape(-1, channels).mean(axis=1), rate


def spectrogram(signal, rate, window=4096, hop=512):
    """Levels in dB re the loudest cell (Hann window), with the frequencies and times."""
    taper = np.hanning(window)
    starts = range(0, max(1, len(signal) - window), hop)
    frames = np.array([np.abs(np.fft.rfft(signal[s:s + window] * taper)) for s in starts])
    levels = 20 * np.log10(np.maximum(frames, 1e-12) / frames.max())
    times = (np.array(list(starts)) + window / 2) / rate
    return levels, np.fft.rfftfreq(window, 1 / rate), times


def figures(signal, rate):
    """What the page quotes: the spectral centroid of the whole sound from 20 Hz to 16 kHz, and
    at the first attack (its first 100 ms) the strongest level above 2 kHz re the strongest."""
    power = np.abs(np.fft.rfft(signal * np.hanning(len(signal)))) ** 2
    freqs = np.fft.rfftfreq(len(signal), 1 / rate)
    heard = (freqs >= 20) & (freqs <= 16_000)
    centroid = (freqs[heard] * power[heard]).sum() / power[heard].sum()
    onset = np.argmax(np.abs(signal) > 1e-3 * np.abs(signal).max())
    attack = signal[onset:onset + int(0.1 * rate)]
    spectrum = np.abs(np.fft.rfft(attack * np.hanning(len(attack))))
    high = np.fft.rfftfreq(len(attack), 1 / rate) > 2000
    return centroid, 20 * np.log10(spectrum[high].max() / spectrum.max())


def main():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not HOOKE.exists():
        sys.exit(f"{HOOKE} is missing: run `cargo build --release -p hooke-cli` first")
    WAVS.mkdir(parents=True, exist_ok=True)
    PICTURES.mkdir(parents=True, exist_ok=True)
    chosen = sys.argv[1:]
    for name, arguments, title in SOUNDS:
        if chosen and name not in chosen:
            continue
        wav = WAVS / f"{name}.wav"
        subprocess.run([str(HOOKE), *arguments, str(wav)], check=True, capture_output=True)
        signal, rate = read_wav(wav)
        levels, freqs, times = spectrogram(signal, rate)
        figure, axes = plt.subplots(figsize=(8, 4), dpi=100)
        shown = (freqs >= 40) & (freqs <= 10_000)
        mesh = axes.pcolormesh(times, freqs[shown], levels[:, shown].T, vmin=-90, vmax=0,
                               cmap="magma", shading="auto")
        axes.set_yscale("log")
        axes.set_xlabel("time (s)")
        axes.set_ylabel("frequency (Hz)")
        axes.set_title(title)
        figure.colorbar(mesh, ax=axes, label="level (dB re the loudest)")
        figure.tight_layout()
        figure.savefig(PICTURES / f"{name}.png")
        plt.close(figure)
        centroid, attack = figures(signal, rate)
        print(f"{name}: {len(signal) / rate:.2f} s at {rate} Hz; spectral centroid {centroid:.0f} Hz; "
              f"strongest above 2 kHz in the first attack {attack:.1f} dB")


if __name__ == "__main__":
    main()
