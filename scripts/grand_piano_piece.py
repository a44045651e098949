"""Writes examples/instruments/grand-piano-20s.mid: a 20 s piece for the 88-key grand piano
(examples/instruments/grand-piano.toml) that reaches from A0 to C8 and changes the sustain pedal
at every bar, so that the piano's dampers, its pedal and its sympathetic strings all play.

Ten bars of 2 s (120 beats a minute, 4/4) in A minor, Am F C G | Am Dm E Am: a bass octave held
through each bar (from A0 up), the chord broken in eighth notes over two octaves above it; the
pedal lifted at each bar line and pressed again 50 ms later (legato pedalling). Bar 9 runs the A
minor chord up from A3 to C8; bar 10 holds A0, A1 and E2 under A4 C5 E5 A5 and C8, the keys
lifted at 19.9 s while the pedal holds them. Run `python3 scripts/grand_piano_piece.py`."""

import pathlib
import struct

from one_note_midi import vlq

TICKS_PER_SECOND = 960  # 480 ticks a beat at 120 beats a minute

CHORDS = [  # (bass MIDI note, chord tones as pitch classes)
    (21, [9, 0, 4]),  # A0: A minor
    (29, [5, 9, 0]),  # F1: F major
    (36, [0, 4, 7]),  # C2: C major
    (31, [7, 11, 2]),  # G1: G major
    (33, [9, 0, 4]),  # A1: A minor
    (38, [2, 5, 9]),  # D2: D minor
    (28, [4, 8, 11, 2]),  # E1: E7
    (45, [9, 0, 4]),  # A2: A minor
]


def events():
    """(time s, MIDI bytes) of the whole piece."""
    out = []

    def note(start, length, key, velocity):
        out.append((start, bytes([0x90, key, velocity])))
        out.append((start + length, bytes([0x80, key, 0])))

    def pedal(time, down):
        out.append((time, bytes([0xB0, 64, 127 if down else 0])))

    for bar, (bass, tones) in enumerate(CHORDS):
        start = 2.0 * bar
        pedal(start, False)
        pedal(start + 0.05, True)
        note(start, 1.95, bass, 90)
        note(start, 1.95, bass + 12, 80)
        # The chord's tones from the octave above C4 (C5 in the last bars), eight eighth notes.
        low = 60 if bar < 4 else 72
        keys = sorted(k for k in range(low, low + 24) if k % 12 in tones)
        for step in range(8):
            key = keys[step % len(keys)] + (12 if step >= len(keys) else 0)
            note(start + 0.25 * step, 0.24, min(key, 108), 70 + 4 * (step % 4))
    run = sorted(k for k in range(57, 109) if k % 12 in (9, 0, 4))  # A3 .. C8
    pedal(16.0, False)
    pedal(16.05, True)
    for step, key in enumerate(run):
        note(16.0 + 0.125 * step, 0.12, key, 60 + 3 * step)
    pedal(18.0, False)
    pedal(18.05, True)
    for key, velocity in [(21, 100), (33, 90), (40, 80), (69, 85), (72, 85), (76, 85), (81, 90), (108, 95)]:
        note(18.0, 1.9, key, velocity)
    return sorted(out, key=lambda event: event[0])


def midi_file():
    track, last = b"", 0
    for time, message in events():
        tick = round(time * TICKS_PER_SECOND)
        track += vlq(tick - last) + message
        last = tick
    track += vlq(20 * TICKS_PER_SECOND - last) + bytes([0xFF, 0x2F, 0])
    return b"MThd" + struct.pack(">IHHH", 6, 0, 1, 480) + b"MTrk" + struct.pack(">I", len(track)) + track


if __name__ == "__main__":
    path = pathlib.Path(__file__).resolve().parent.parent / "examples/instruments/grand-piano-20s.mid"
    path.write_bytes(midi_file())
    print(f"wrote {path}")
