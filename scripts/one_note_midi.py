"""A one-note Standard MIDI File, what the scripts comparing Hooke with recordings play on both
sides (`fit-vs-recordings.py`, `sound-vs-recordings.py`)."""

import struct


def vlq(n):
    """`n` as a MIDI variable-length quantity."""
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    return bytes(reversed(out))


def midi_file(program, note, seconds=4.0, velocity=100):
    """Program change, note on at 0, off at `seconds`, the end 1 s later (480 ticks a beat at
    120 beats a minute: 960 ticks a second)."""

    events = vlq(0) + bytes([0xC0, program]) + vlq(0) + bytes([0x90, note, velocity])
    events += vlq(int(seconds * 960)) + bytes([0x80, note, 0]) + vlq(960) + bytes([0xFF, 0x2F, 0])
    return b"MThd" + struct.pack(">IHHH", 6, 0, 1, 480) + b"MTrk" + struct.pack(">I", len(events)) + events
