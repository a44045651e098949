"""The VST3 in a third-party host: Spotify's pedalboard (JUCE's VST3 hosting) loads
target/plugin/bundled/hooke.vst3 with no saved state (the acoustic guitar), plays a MIDI melody
and measures each note's pitch on the sound; then a host-set tension of 1.06 must raise a note
by 1200 log2(sqrt(1.06)) = 50.4 cents. Run by scripts/test-plugin.sh:
    python crates/hooke-plugin/tests/vst3/pedalboard_host.py target/plugin/bundled/hooke.vst3
"""

import sys

import numpy as np
import pedalboard
from mido import Message

RATE = 44100.0
NOTE = 0.6  # s a note lasts, released before the next
WINDOW = (0.05, 0.45)  # s into each note measured
# The melody: C major from C3 to C5, each note on the string and fret the lowest-fret rule
# gives it (docs/play.md), none of them a note another open string sounds too.
MELODY = [48, 50, 52, 53, 55, 57, 59, 60, 62, 64, 67, 72]
NOTE_TOLERANCE = 3.0  # cents
TENSION = 1.06


def equal_tempered(note):
    return 440.0 * 2.0 ** ((note - 69) / 12.0)


def cents(measured, expected):
    return 1200.0 * np.log2(measured / expected)


def pitch(signal, expected):
    """The largest peak of the Hann-windowed spectrum within 50 cents of `expected` (Hz),
    16 times zero-padded and refined by a parabola through the log magnitudes."""
    size = 16 * len(signal)
    magnitude = np.abs(np.fft.rfft(signal * np.hanning(len(signal)), size))
    frequencies = np.arange(len(magnitude)) * RATE / size
    band = (frequencies > expected * 2 ** (-50 / 1200)) & (frequencies < expected * 2 ** (50 / 1200))
    peak = int(np.argmax(np.where(band, magnitude, 0.0)))
    a, b, c = np.log(magnitude[peak - 1 : peak + 2])
    return (peak + 0.5 * (a - c) / (a - 2 * b + c)) * RATE / size


def play(plugin, notes):
    """Each note of `notes` for NOTE s at velocity 100; the plugin's stereo output, summed."""
    messages = []
    for i, note in enumerate(notes):
        messages.append(Message("note_on", note=note, velocity=100, time=i * NOTE))
        messages.append(Message("note_off", note=note, time=(i + 0.9) * NOTE))
    audio = plugin(messages, duration=len(notes) * NOTE + 0.2, sample_rate=RATE, num_channels=2, buffer_size=512)
    return audio.sum(axis=0)


def measure(mono, notes, shift=1.0):
    """Each note's pitch error from its equal-tempered pitch times `shift`, cents."""
    errors = []
    for i, note in enumerate(notes):
        start, end = (int((i * NOTE + t) * RATE) for t in WINDOW)
        expected = equal_tempered(note) * shift
        errors.append(cents(pitch(mono[start:end], expected), expected))
    return errors


def main(path):
    plugin = pedalboard.load_plugin(path)
    assert plugin.is_instrument, f"{path}: not loaded as an instrument"
    mono = play(plugin, MELODY)
    assert np.all(np.isfinite(mono)) and np.max(np.abs(mono)) > 1e-3, "silent or not finite"
    errors = measure(mono, MELODY)
    for note, error in zip(MELODY, errors):
        print(f"note {note}: {error:+.3f} cents")
    worst = max(abs(e) for e in errors)
    print(f"melody of {len(MELODY)} notes: worst {worst:.3f} cents (tolerance {NOTE_TOLERANCE})")
    assert worst < NOTE_TOLERANCE, f"a note is {worst:.3f} cents out of tune"

    # Tension: the same note at 1 and at 1.06, compared with each other (the instrument's own
    # intonation cancels), against sqrt(1.06).
    probe = [57]
    before = pitch(mono[int(5 * NOTE * RATE) + int(WINDOW[0] * RATE) : int(5 * NOTE * RATE) + int(WINDOW[1] * RATE)], equal_tempered(57))
    plugin.tension_x = TENSION
    assert abs(plugin.tension_x - TENSION) < 1e-3, f"the host set tension {plugin.tension_x}"
    raised = play(plugin, probe)
    expected = 1200.0 * np.log2(np.sqrt(TENSION))
    start, end = (int(t * RATE) for t in WINDOW)
    shift = cents(pitch(raised[start:end], equal_tempered(57) * np.sqrt(TENSION)), before)
    print(f"tension {TENSION}: note 57 up {shift:.3f} cents (expected {expected:.3f} +- 3)")
    assert abs(shift - expected) < 3.0, f"tension {TENSION} moved the pitch {shift:.3f} cents"


if __name__ == "__main__":
    main(sys.argv[1])
