#!/usr/bin/env python3
"""Hooke's instruments against recordings of real instruments at the same notes: each note
played through Hooke's MIDI mapping (velocity 100, held 4 s, 1 s more) and by fluidsynth from
General MIDI soundfonts, the same analysis on both sides, the issue's targets checked.

    python3 scripts/sound-vs-recordings.py [--out DIR] [--only NAME] [--instrument NAME=FILE]
                                           [--reuse] [--self-test]

Needs numpy and matplotlib, fluidsynth and the soundfonts (Debian: `apt-get install fluidsynth
musescore-general-soundfont timgm6mb-soundfont`) and a built `hooke` (HOOKE_BIN, default
target/release/hooke). Writes DIR/table.md (also printed), DIR/<case>-<note>.png (spectrograms)
and DIR/<case>-decays.png (partials 1-8); renders go to DIR/renders (--reuse keeps them).

Measures, on a mono mix (mean of the channels), 44100 Hz on both sides (nothing resampled):
- envelope: rms over 0.5 ms (centred); "onset" is its first sample at -20 dB of its peak, the
  start of the 100 ms / 200 ms / long-term windows;
- centroid: magnitude-weighted, 20 Hz-16 kHz, of the first 100 ms (Hann, zero-padded x8);
- >2 kHz: strongest spectral peak above 2 kHz in that spectrum, dB under its strongest peak;
- partials: peaks of the spectrum (Hann, 1 s from onset + 50 ms) searched within half a spacing
  of k times the last found partial's frequency / its number (so stretched series are followed),
  kept where 10 dB over the window's median and within 80 dB of the strongest;
- each partial's dB track: demodulation at its frequency with a Blackman-Harris window of
  6/f0 (5 ms hop); a least-squares line from the track's peak (first second) down to 40 dB
  under it (or 100 dB under the strongest track, or the note-off, or the recording's sample
  loop), at least 0.1 s: T60 = -60/slope, irregularity = rms of the track about the line;
- T60 1.8-3.2 kHz: median over the partials found there; T60(1)/T60(8); irregularity: median
  over partials 1-8;
- between partials: first 200 ms (Blackman-Harris), power 20 Hz-16 kHz outside +-max(5 bins,
  3% f0) of each partial peak, re the total, dB;
- 1/3 octave: bands 63 Hz-8 kHz of the first 3.9 s after onset, each side's level shifted by
  the mean difference, rms of the rest (bands floored 100 dB under the loudest);
- onset to half: from the first sample at -40 dB of the envelope's peak to the first at -6 dB;
- tuning: the fundamental's peak within 60 cents of the note (0.4 s from onset + 0.1 s, Hann,
  zero-padded to 2^20, parabolic), cents from 440*2^((n-69)/12).
A soundfont's "recording" is its sample played through the preset's volume envelope, filter and
loop. The preset's zones are read from the file: decay fits stop where the sample loops, and a
partial whose decay is under twice the envelope's fade (about 96 dB per decay time) is the
preset's, not measurable. A measure not made on a side is "n/a" and does not pass."""

import argparse
import math
import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from one_note_midi import midi_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HOOKE = os.environ.get("HOOKE_BIN", str(ROOT / "target" / "release" / "hooke"))
RATE, HOLD, VELOCITY = 44100, 4.0, 100
SOUNDFONTS = [("MuseScore", "/usr/share/sounds/sf3/MuseScore_General.sf3"), ("TimGM6mb", "/usr/share/sounds/sf2/TimGM6mb.sf2")]
# (name, Hooke instrument file, General MIDI program, MIDI notes)
CASES = [
    ("steel guitar", "examples/instruments/acoustic-guitar.toml", 25, [40, 45, 50, 55, 59, 64]),
    ("piano", "examples/instruments/piano.toml", 0, [48, 60, 72]),
    ("marimba", "examples/instruments/marimba.toml", 12, [60, 72]),
]
INSTALL = "apt-get install fluidsynth musescore-general-soundfont timgm6mb-soundfont"
NAMES = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
# (key, heading, format, pass test on (hooke, recording))
MEASURES = [
    ("centroid", "centroid 100 ms (Hz)", "{:.0f}", lambda h, r: abs(h / r - 1) <= 0.3),
    ("high", "strongest >2 kHz (dB)", "{:.1f}", lambda h, r: abs(h - r) <= 6),
    ("t60", "T60 1.8-3.2 kHz (s)", "{:.2f}", lambda h, r: max(h / r, r / h) <= 1.5),
    ("t60_ratio", "T60(1)/T60(8)", "{:.2f}", lambda h, r: max(h / r, r / h) <= 1.5),
    ("irregular", "irregularity (dB)", "{:.2f}", lambda h, r: r < 1 or h >= 1),
    ("between", "between partials (dB)", "{:.1f}", lambda h, r: abs(h - r) <= 6),
    ("thirds", "1/3 oct rms (dB)", "{:.1f}", None),
    ("half", "onset to half (ms)", "{:.2f}", lambda h, r: max(h, 1e-3) / max(r, 1e-3) <= 2 and max(r, 1e-3) / max(h, 1e-3) <= 2),
    ("cents", "tuning (cents)", "{:+.2f}", lambda h, r: abs(h) <= 1),
]
TARGETS = ("centroid within 30%; strongest >2 kHz within 6 dB; T60 1.8-3.2 kHz within a factor 1.5; "
           "T60(1)/T60(8) within a factor 1.5; irregularity >= 1 dB where the recording's is >= 1 dB "
           "(passes where it is under 1 dB); between partials within 6 dB; 1/3 octave within 6 dB rms; "
           "onset to half within a factor 2; Hooke's note within 1 cent. An instrument passes a "
           "measure where at least two thirds of its notes do.")


def note_name(n):
    return f"{NAMES[n % 12]}{n // 12 - 1}"


def read_wav(path):
    """A WAV file (16/24-bit PCM or 32-bit float) as the mean of its channels, and its rate."""
    data, position, fmt = Path(path).read_bytes(), 12, None
    while position + 8 <= len(data):
        chunk, size = data[position : position + 4], struct.unpack("<I", data[position + 4 : position + 8])[0]
        body = data[position + 8 : position + 8 + size]
        if chunk == b"fmt ":
            fmt = struct.unpack("<HHI", body[:8]) + (struct.unpack("<H", body[14:16])[0],)
        elif chunk == b"data" and fmt:
            tag, channels, rate, bits = fmt
            if bits == 32 and tag in (3, 0xFFFE):
                x = np.frombuffer(body, "<f4").astype(float)
            elif bits == 16:
                x = np.frombuffer(body, "<i2") / 32768.0
            elif bits == 24:
                raw = np.frombuffer(body, np.uint8).reshape(-1, 3).astype(np.int32)
                x = ((raw[:, 0] | raw[:, 1] << 8 | raw[:, 2] << 16) << 8 >> 8) / 8388608.0
            else:
                raise ValueError(f"{path}: {bits}-bit format {tag} not read")
            return x[: len(x) // channels * channels].reshape(-1, channels).mean(axis=1), rate
        position += 8 + size + (size & 1)
    raise ValueError(f"{path}: no fmt/data chunk")


def preset_facts(path, program, key, velocity=VELOCITY):
    """What a soundfont's preset does to one note, from its zones: the earliest sample loop
    start (s of output, None where none loops), the slowest volume-envelope fade (dB/s) and the
    shortest and longest attack (ms) of the zones (layers) that play it."""
    with open(path, "rb") as file:
        file.seek(12)
        while True:
            head = file.read(8)
            if len(head) < 8:
                return None
            size = struct.unpack("<I", head[4:])[0]
            if head[:4] == b"LIST" and file.read(4) == b"pdta":
                body = file.read(size - 4)
                break
            file.seek(size + (size & 1) - (4 if head[:4] == b"LIST" else 0), 1)
    pdta, position = {}, 0
    while position + 8 <= len(body):
        size = struct.unpack("<I", body[position + 4 : position + 8])[0]
        pdta[body[position : position + 4]] = body[position + 8 : position + 8 + size]
        position += 8 + size + (size & 1)

    def zones(bags, gens, first, last):
        out = []
        for b in range(first, last):
            g0, g1 = struct.unpack_from("<H", bags, 4 * b)[0], struct.unpack_from("<H", bags, 4 * b + 4)[0]
            out.append({struct.unpack_from("<H", gens, 4 * g)[0]: gens[4 * g + 2 : 4 * g + 4] for g in range(g0, g1)})
        return out

    def plays(zone):
        return all(o not in zone or zone[o][0] <= v <= zone[o][1] for o, v in ((43, key), (44, velocity)))

    def split(all_zones, link):
        glob = all_zones[0] if all_zones and link not in all_zones[0] else {}
        return glob, [z for z in all_zones if link in z and plays(z)]

    phdr, facts = pdta[b"phdr"], []
    for i in range(len(phdr) // 38 - 1):
        _, number, bank, bag = struct.unpack_from("<20sHHH", phdr, 38 * i)
        if (number, bank) == (program, 0):
            pglob, pzones = split(zones(pdta[b"pbag"], pdta[b"pgen"], bag, struct.unpack_from("<H", phdr, 38 * i + 62)[0]), 41)
            break
    else:
        return None
    for pz in pzones:
        inst = struct.unpack("<H", pz[41])[0]
        ibag, nbag = struct.unpack_from("<H", pdta[b"inst"], 22 * inst + 20)[0], struct.unpack_from("<H", pdta[b"inst"], 22 * inst + 42)[0]
        iglob, izones = split(zones(pdta[b"ibag"], pdta[b"igen"], ibag, nbag), 53)
        for iz in izones:
            def gen(o, default, preset=True):
                own = iz.get(o, iglob.get(o))
                added = pz.get(o, pglob.get(o)) if preset else None
                value = default if own is None else struct.unpack("<h", own)[0]
                return value + (0 if added is None else struct.unpack("<h", added)[0])

            _, start, _, loop, _, srate, pitch = struct.unpack_from("<20sIIIIIB", pdta[b"shdr"], 46 * struct.unpack("<H", iz[53])[0])
            kind = struct.unpack_from("<H", pdta[b"shdr"], 46 * struct.unpack("<H", iz[53])[0] + 44)[0]
            root = gen(58, -1, False) if gen(58, -1, False) >= 0 else pitch
            frames = (loop if kind & 0x10 else loop - start) + gen(2, 0) + 32768 * gen(45, 0)
            loops = gen(54, 0, False) & 1
            decay = 2 ** ((gen(36, -12000) + gen(40, 0) * (60 - key)) / 1200)
            facts.append((frames / srate / 2 ** ((key - root) / 12) if loops else None, 96 / decay, 1000 * 2 ** (gen(34, -12000) / 1200)))
    if not facts:
        return None
    loops = [f[0] for f in facts if f[0] is not None]
    return min(loops) if loops else None, min(f[1] for f in facts), min(f[2] for f in facts), max(f[2] for f in facts)


def run(command):
    """Run a command, exiting with its error output where it fails."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, command))}\n{done.stderr.strip()}")


def hooke_command(instrument, mid, wav):
    return [HOOKE, "render", str(instrument), str(mid), "-o", str(wav), "--rate", str(RATE), "--tail", "0"]


def fluidsynth_command(soundfont, mid, wav):
    return ["fluidsynth", "-ni", "-q", "-R", "0", "-C", "0", "-g", "1.0", "-r", str(RATE), "-O", "float", "-T", "wav", "-F", str(wav), soundfont, str(mid)]


# ---- analysis ------------------------------------------------------------------------------

def envelope(x, rate, ms=0.5):
    """Rms over `ms` milliseconds, centred."""
    n = max(1, int(round(ms * 1e-3 * rate)))
    power = np.convolve(x * x, np.ones(n) / n, mode="same")
    return np.sqrt(np.maximum(power, 0))


def crossing(env, db):
    """First sample where `env` reaches `db` re its peak."""
    return int(np.argmax(env >= env.max() * 10 ** (db / 20)))


def blackman_harris(n):
    t = 2 * np.pi * np.arange(n) / (n - 1)
    return 0.35875 - 0.48829 * np.cos(t) + 0.14128 * np.cos(2 * t) - 0.01168 * np.cos(3 * t)


def spectrum(segment, rate, window=np.hanning, pad=8):
    """Frequencies and power of a windowed, zero-padded segment."""
    n = 1 << int(math.ceil(math.log2(len(segment) * pad)))
    power = np.abs(np.fft.rfft(segment * window(len(segment)), n)) ** 2
    return np.fft.rfftfreq(n, 1 / rate), power


def peak(freqs, db, i):
    """Parabolic refinement of a spectral peak at bin i."""
    a, b, c = db[i - 1], db[i], db[i + 1]
    d = 0.5 * (a - c) / (a - 2 * b + c) if a - 2 * b + c < 0 else 0.0
    return freqs[i] + d * (freqs[1] - freqs[0])


def locate_partials(freqs, power, f0, top):
    """Partials k = 1, 2, ... up to `top` Hz: peaks near k x (last found / its k), kept where
    10 dB over the search window's median and within 80 dB of the strongest. {k: Hz}."""
    db = 10 * np.log10(power + 1e-300)
    floor, spacing, found, k = db.max() - 80, f0, {}, 1
    while k * spacing < top:
        lo, hi = np.searchsorted(freqs, [(k - 0.5) * spacing, (k + 0.5) * spacing])
        if hi - lo >= 5:
            i = lo + int(np.argmax(db[lo:hi]))
            if lo < i < hi - 1 and db[i] > floor and db[i] > np.median(db[lo:hi]) + 10:
                found[k] = peak(freqs, db, i)
                spacing = found[k] / k
        k += 1
    return found


def pitch(x, rate, start, nominal):
    """The fundamental (Hz): the strongest peak within 60 cents of `nominal`, 0.4 s from 0.1 s
    after `start`."""
    segment = x[start + int(0.1 * rate) : start + int(0.5 * rate)]
    freqs, power = spectrum(segment, rate, pad=(1 << 20) / len(segment))
    lo, hi = np.searchsorted(freqs, [nominal * 2 ** (-0.05), nominal * 2 ** 0.05])
    i = lo + int(np.argmax(power[lo:hi]))
    return peak(freqs, 10 * np.log10(power + 1e-300), i)


def tracks(x, rate, frequencies, f0, hop=0.005):
    """Each frequency's level (dB of amplitude) through time: demodulation with a
    Blackman-Harris window of 6/f0. Returns frame centre times and a (partials, frames) array."""
    n, step = int(6 * rate / f0), int(hop * rate)
    window = blackman_harris(n)
    frames = np.lib.stride_tricks.sliding_window_view(x, n)[::step]
    phase = 2 * np.pi * np.outer(np.arange(n), frequencies) / rate
    re, im = frames @ (window[:, None] * np.cos(phase)), frames @ (window[:, None] * np.sin(phase))
    amplitude = 2 * np.hypot(re, im) / window.sum()
    return (np.arange(len(frames)) * step + n / 2) / rate, 20 * np.log10(amplitude.T + 1e-15), n / rate


def fit_decay(t, db, onset, end, floor):
    """A line through a dB track from its peak (first second after `onset`) down to 40 dB under
    it or `floor`, before `end` (s). (slope dB/s, rms residual dB, fitted slice) or None."""
    idx = np.flatnonzero((t >= onset) & (t <= end))
    first = idx[t[idx] <= onset + 1.0]
    if len(first) == 0:
        return None
    i0 = first[int(np.argmax(db[first]))]
    after = idx[idx >= i0]
    low = after[db[after] < max(db[i0] - 40, floor)]
    i1 = low[0] if len(low) else after[-1] + 1
    if i1 - i0 < 5 or t[i1 - 1] - t[i0] < 0.1:
        return None
    slope, intercept = np.polyfit(t[i0:i1], db[i0:i1], 1)
    residual = db[i0:i1] - (slope * t[i0:i1] + intercept)
    return slope, float(np.sqrt(np.mean(residual**2))), slice(i0, i1)


def decays(x, rate, start, f0, end, fade):
    """T60 of the partials at 1.8-3.2 kHz (median), T60(1)/T60(8), irregularity (median over
    partials 1-8) and the dB tracks of partials 1-8 ({k: (t from onset, dB)})."""
    freqs, power = spectrum(x[start + int(0.05 * rate) : start + int(1.05 * rate)], rate, pad=4)
    found = locate_partials(freqs, power, f0, max(3300, 9 * f0))
    if not found:
        return None, None, None, {}
    ks = sorted(found)
    t, levels, span = tracks(x, rate, [found[k] for k in ks], f0)
    floor, onset = levels.max() - 100, start / rate
    fits, shown = {}, {}
    for k, db in zip(ks, levels):
        if k <= 8:
            shown[k] = (t - onset, db - levels.max())
        fit = fit_decay(t, db, onset, end - span / 2, floor)
        if fit and fit[0] < 0 and not (fade and -fit[0] < 2 * fade):
            fits[k] = fit
    band = [-60 / fits[k][0] for k in ks if k in fits and 1800 <= found[k] <= 3200]
    t60 = float(np.median(band)) if band else None
    ratio = fits[8][0] / fits[1][0] if 1 in fits and 8 in fits else None
    rough = [fits[k][1] for k in range(1, 9) if k in fits]
    return t60, ratio, (float(np.median(rough)) if rough else None), shown


def between(x, rate, start, f0):
    """Power outside +-max(5 bins, 3% f0) of each partial in the first 200 ms, re the total, dB."""
    segment = x[start : start + int(0.2 * rate)]
    freqs, power = spectrum(segment, rate, window=blackman_harris, pad=4)
    heard = (freqs >= 20) & (freqs <= 16000)
    near = np.zeros(len(freqs), bool)
    half = max(5 * rate / len(segment), 0.03 * f0)
    for f in locate_partials(freqs, power, f0, 16000).values():
        near |= np.abs(freqs - f) <= half
    return 10 * math.log10(power[heard & ~near].sum() / power[heard].sum() + 1e-30)


def third_octaves(x, rate, start, seconds=HOLD - 0.1):
    """1/3-octave band levels (dB) 63 Hz-8 kHz, floored 100 dB under the loudest band."""
    freqs, power = spectrum(x[start : start + int(seconds * rate)], rate, pad=1)
    levels = []
    for k in range(-12, 10):
        centre = 1000 * 2 ** (k / 3)
        band = (freqs >= centre * 2 ** (-1 / 6)) & (freqs < centre * 2 ** (1 / 6))
        levels.append(10 * math.log10(power[band].sum() + 1e-300))
    levels = np.array(levels)
    return np.maximum(levels, levels.max() - 100)


def analyse(x, rate, note, end=HOLD, fade=None):
    """Every measure of one note (a dict); `end` (s) bounds the decay fits."""
    env = envelope(x, rate)
    start, first, half = crossing(env, -20), crossing(env, -40), crossing(env, -6)
    nominal = 440 * 2 ** ((note - 69) / 12)
    f0 = pitch(x, rate, start, nominal)
    freqs, power = spectrum(x[start : start + int(0.1 * rate)], rate)
    heard = (freqs >= 20) & (freqs <= 16000)
    high, magnitude = heard & (freqs > 2000), np.sqrt(power)
    t60, ratio, rough, shown = decays(x, rate, start, f0, end, fade)
    return {
        "centroid": float((freqs[heard] * magnitude[heard]).sum() / magnitude[heard].sum()),
        "high": 10 * math.log10(power[high].max() / power[heard].max()),
        "t60": t60, "t60_ratio": ratio, "irregular": rough,
        "between": between(x, rate, start, f0),
        "bands": third_octaves(x, rate, start),
        "half": 1000 * (half - first) / rate,
        "cents": 1200 * math.log2(f0 / nominal),
        "onset": start, "tracks": shown,
    }


def thirds_rms(a, b):
    """Rms dB difference of two band spectra after matching their mean level."""
    d = a - b
    return float(np.sqrt(np.mean((d - d.mean()) ** 2)))


# ---- table and pictures --------------------------------------------------------------------

def cell(key, fmt, test, h, r):
    """'hooke / recording' with a mark, and whether it passes (n/a never does)."""
    if key == "thirds":
        return (f"{h:.1f} ✓" if h <= 6 else f"{h:.1f} ✗"), h <= 6
    show = lambda v: "n/a" if v is None else fmt.format(v)
    ok = h is not None and (key == "cents" or r is not None) and test(h, r)
    return f"{show(h)} / {show(r)} {'✓' if ok else '✗'}", ok


def instrument_table(name, file, program, notes, results, facts):
    """Markdown for one instrument: a row per note and recording, then the pass counts."""
    heads = [m[1] for m in MEASURES]
    lines = [f"### {name}: `{file}`, General MIDI program {program}", "",
             "| note | recording | " + " | ".join(heads) + " | preset (loop / fade / attack) |",
             "|---" * (len(heads) + 3) + "|"]
    passes = {sf: [0] * len(MEASURES) for sf, _ in SOUNDFONTS}
    for note in notes:
        hooke = results[("hooke", note)]
        for sf, _ in SOUNDFONTS:
            rec = results[(sf, note)]
            cells = []
            for m, (key, _, fmt, test) in enumerate(MEASURES):
                h, r = (thirds_rms(hooke["bands"], rec["bands"]), None) if key == "thirds" else (hooke[key], rec[key])
                text, ok = cell(key, fmt, test, h, r)
                cells.append(text)
                passes[sf][m] += ok
            loop, fade, attack, slow = facts[(sf, note)] or (None,) * 4
            preset = "?" if fade is None else f"{'no loop' if loop is None else f'loops from {loop:.2f} s'} / {fade:.1f} dB/s / {attack:.1f} ms"
            preset += f" (a layer {slow / 1000:.1f} s)" if slow and slow > 2 * attack + 1 else ""
            lines.append(f"| {note_name(note)} ({note}) | {sf} | " + " | ".join(cells) + f" | {preset} |")
    for sf, _ in SOUNDFONTS:
        counts = [f"{p}/{len(notes)} {'✓' if 3 * p >= 2 * len(notes) else '✗'}" for p in passes[sf]]
        lines.append(f"| **passing** | {sf} | " + " | ".join(counts) + " | |")
    return lines, passes


def spectrogram(x, rate, start, seconds=3.0, n=2048, hop=256):
    """dB (re its maximum) of a Hann STFT, 0-8 kHz, `seconds` from `start`."""
    segment = x[start : start + int(seconds * rate) + n]
    frames = np.lib.stride_tricks.sliding_window_view(segment, n)[::hop] * np.hanning(n)
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    top = int(8000 * n / rate) + 1
    db = 10 * np.log10(power[:, :top].T + 1e-30)
    return db - db.max()


def pictures(plt, out, name, notes, signals, results):
    """Per note: the spectrograms side by side; per instrument: partial decays 1-8."""
    sides = ["hooke"] + [sf for sf, _ in SOUNDFONTS]
    slug = name.replace(" ", "-")
    for note in notes:
        figure, axes = plt.subplots(1, len(sides), figsize=(5 * len(sides), 4), sharey=True)
        for ax, side in zip(axes, sides):
            image = ax.imshow(spectrogram(signals[(side, note)], RATE, results[(side, note)]["onset"]), origin="lower",
                              aspect="auto", extent=[0, 3, 0, 8], vmin=-90, vmax=0, cmap="magma")
            ax.set_title(f"{name} {note_name(note)}: {side}")
            ax.set_xlabel("s from onset")
        axes[0].set_ylabel("kHz")
        figure.colorbar(image, ax=list(axes), label="dB re maximum")
        figure.savefig(out / f"{slug}-{note}.png", dpi=80)
        plt.close(figure)
    columns = min(3, len(notes))
    rows = math.ceil(len(notes) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(5.5 * columns, 4 * rows), squeeze=False)
    styles = dict(zip(sides, ["-", "--", ":"]))
    for ax, note in zip(axes.flat, notes):
        for side in sides:
            for k, (t, db) in results[(side, note)]["tracks"].items():
                keep = (t >= 0) & (t <= HOLD)
                ax.plot(t[keep], db[keep], styles[side], color=plt.cm.tab10(k - 1), lw=1,
                        label=f"{k}" if side == "hooke" else None)
        ax.set_title(f"{name} {note_name(note)}: hooke -, " + ", ".join(f"{sf} {styles[sf]}" for sf, _ in SOUNDFONTS), fontsize=8)
        ax.set_ylim(-100, 5)
        ax.set_xlabel("s from onset")
        ax.set_ylabel("dB re strongest partial")
        ax.legend(title="partial", fontsize=6, ncol=2)
    for ax in list(axes.flat)[len(notes):]:
        ax.axis("off")
    figure.tight_layout()
    figure.savefig(out / f"{slug}-decays.png", dpi=80)
    plt.close(figure)


# ---- self-test -------------------------------------------------------------------------------

def self_test():
    """Synthesised notes with closed-form answers; exits 1 where a measure misses them."""
    rate, f0, b, seconds = RATE, 220.0, 1e-4, 5.0
    t = np.arange(int(seconds * rate)) / rate
    rng = np.random.default_rng(1)
    ks = np.arange(1, 17)
    freqs = ks * f0 * np.sqrt(1 + b * ks**2)
    amps, t60s = 1.0 / ks, 6.0 / (1 + (freqs / 1000) ** 2)
    ramp = np.minimum(t / 0.002, 1.0)
    x = sum(a * ramp * 10 ** (-3 * t / T) * np.sin(2 * np.pi * f * t + p)
            for a, f, T, p in zip(amps, freqs, t60s, rng.uniform(0, 2 * np.pi, 16)))
    m = analyse(x, rate, 57)
    # From the synthesis: each partial's Hann-windowed envelope over the first 100 ms from the
    # onset, its magnitude lobe (centred on its frequency) summed from the envelope's own spectrum.
    on = m["onset"] / rate
    u = np.linspace(0, 0.1, 20001)
    w = np.hanning(len(u))
    env = [np.minimum((u + on) / 0.002, 1) * 10 ** (-3 * (u + on) / T) for T in t60s]
    lobe = np.array([a * np.abs(np.fft.fft(w * e, 1 << 19)).sum() for a, e in zip(amps, env)])
    level = np.array([a * np.mean(w * e) for a, e in zip(amps, env)])
    band = (freqs >= 1800) & (freqs <= 3200)
    expected = {
        "centroid": (freqs * lobe).sum() / lobe.sum(),
        "high": 20 * math.log10(level[freqs > 2000].max() / level.max()),
        "t60": float(np.median(t60s[band])),
        "t60_ratio": t60s[0] / t60s[7],
        "cents": 1200 * math.log2(freqs[0] / f0),
    }
    checks = [(k, m[k], expected[k], 0.05 * expected[k]) for k in ("centroid", "t60", "t60_ratio")]
    checks += [("high", m["high"], expected["high"], 0.5), ("cents", m["cents"], expected["cents"], 0.1),
               ("irregular", m["irregular"], 0.0, 0.3), ("between (pure partials: under -50)", m["between"], -100.0, 50.0),
               ("1/3 octave of x/2 vs x", thirds_rms(m["bands"], third_octaves(x / 2, rate, m["onset"])), 0.0, 0.01)]
    # Onset to half: a 4 kHz tone (an rms over 0.5 ms follows it) ramped linearly over 8 ms.
    ramp_s, T = 0.008, 2.0
    a = np.minimum(t / ramp_s, 1.0) * 10 ** (-3 * np.maximum(t - ramp_s, 0) / T)
    want = 1000 * (0.5 - 0.01) * ramp_s
    checks.append(("half", analyse(a * np.sin(2 * np.pi * 4000 * t), rate, 107)["half"], want, 0.1 * want))
    failed = 0
    for name, got, want, tol in checks:
        ok = got is not None and abs(got - want) <= tol
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: measured {'n/a' if got is None else f'{got:.4g}'}, expected {want:.4g} +- {tol:.3g}")
    sys.exit(1 if failed else 0)


# ---- main ------------------------------------------------------------------------------------

def check_tools():
    """Exit with what to install where fluidsynth, a soundfont or hooke is missing."""
    missing = []
    if not shutil.which("fluidsynth"):
        missing.append("fluidsynth (not on PATH)")
    missing += [f"soundfont {path}" for _, path in SOUNDFONTS if not Path(path).exists()]
    if missing:
        sys.exit("missing: " + "; ".join(missing) + f"\ninstall with: {INSTALL}")
    if not (Path(HOOKE).is_file() and os.access(HOOKE, os.X_OK)):
        sys.exit(f"missing: the hooke binary {HOOKE}\nbuild it with `cargo build --release -p hooke-cli`, or set HOOKE_BIN")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "target" / "sound-vs-recordings"))
    parser.add_argument("--only", help="run one case: " + ", ".join(c[0] for c in CASES))
    parser.add_argument("--instrument", action="append", default=[], metavar="NAME=FILE", help="another instrument file for a case")
    parser.add_argument("--reuse", action="store_true", help="keep WAVs already rendered in OUT/renders")
    parser.add_argument("--self-test", action="store_true", help="check the measures on synthesised notes")
    args = parser.parse_args()
    if args.self_test:
        self_test()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("missing: matplotlib (pip install matplotlib)")
    check_tools()
    files = {}
    for swap in args.instrument:
        name, _, file = swap.partition("=")
        if name not in [c[0] for c in CASES] or not file:
            sys.exit(f"--instrument {swap}: expected NAME=FILE with NAME one of {[c[0] for c in CASES]}")
        files[name] = file
    cases = [(n, files.get(n, f), p, notes) for n, f, p, notes in CASES if args.only in (None, n)]
    if not cases:
        sys.exit(f"--only {args.only}: no such case")
    out = Path(args.out)
    renders = out / "renders"
    renders.mkdir(parents=True, exist_ok=True)
    began = time.time()
    report = ["# Hooke against soundfont recordings", "",
              f"Each note at velocity {VELOCITY}, held {HOLD:.0f} s, {RATE} Hz; the same analysis on both sides "
              "(scripts/sound-vs-recordings.py; its docstring defines each measure). Cells are hooke / recording.", ""]
    for name, file, program, notes in cases:
        instrument = Path(file) if Path(file).is_absolute() else ROOT / file
        if not instrument.exists():
            sys.exit(f"missing: instrument file {instrument}")
        signals, results, facts = {}, {}, {}
        for note in notes:
            mid = renders / f"p{program}-{note}.mid"
            mid.write_bytes(midi_file(program, note))
            wav = renders / f"{instrument.stem}-{note}.wav"
            if not (args.reuse and wav.exists()):
                run(hooke_command(instrument, mid, wav))
            signals[("hooke", note)] = read_wav(wav)[0]
            results[("hooke", note)] = analyse(signals[("hooke", note)], RATE, note)
            for sf, path in SOUNDFONTS:
                wav = renders / f"{sf}-p{program}-{note}.wav"
                if not (args.reuse and wav.exists()):
                    run(fluidsynth_command(path, mid, wav))
                facts[(sf, note)] = preset_facts(path, program, note)
                loop, fade = (facts[(sf, note)] or (None, None))[:2]
                signals[(sf, note)] = read_wav(wav)[0]
                results[(sf, note)] = analyse(signals[(sf, note)], RATE, note, HOLD if loop is None else min(HOLD, loop), fade)
        lines, _ = instrument_table(name, file, program, notes, results, facts)
        report += lines + [""]
        pictures(plt, out, name, notes, signals, results)
    report += ["Targets: " + TARGETS, "",
               "Notes: a soundfont's recording is a sampled note played through the preset's volume envelope "
               "(its attack, a fade of about 96 dB per decay time), filter and sample loop, so its decays and "
               "attack are partly the preset's. The decay fits of a recording stop where its sample loops (the "
               "preset column; from the soundfont's zones for this key and velocity); a partial decaying less than "
               "twice the fade is counted as the preset's and left out; T60 measures need at least 0.1 s of fit. "
               "n/a: the measure could not be made (no partial found or fitted there, a loop too early), and does "
               "not pass. The 1/3-octave column is one number per note; tuning passes on Hooke's value alone.", "",
               "Commands, per note (NOTE.mid: program, note on at 0 s, off at 4 s, end at 5 s):", "",
               "    " + " ".join(map(str, hooke_command("INSTRUMENT.toml", "NOTE.mid", "hooke.wav"))).replace(HOOKE, "hooke"),
               *["    " + " ".join(fluidsynth_command(path, "NOTE.mid", f"{sf}.wav")) for sf, path in SOUNDFONTS], "",
               "Soundfonts: " + "; ".join(f"{sf} = {Path(p).resolve()}" for sf, p in SOUNDFONTS) + ".",
               f"Pictures: {out}/<case>-<note>.png (spectrograms, first 3 s, 0-8 kHz), {out}/<case>-decays.png.",
               f"Run time {time.time() - began:.0f} s."]
    text = "\n".join(report) + "\n"
    (out / "table.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
