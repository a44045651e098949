"""Instruments played from scores: the same samples as `hooke render`, in blocks or at once."""

import struct
import subprocess

import numpy as np
import pytest

import hooke


def read_float_wav(path):
    """The samples of a 32-bit float WAV as (channels, frames)."""
    data = path.read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    position, channels = 12, None
    while position < len(data):
        chunk, size = data[position : position + 4], struct.unpack("<I", data[position + 4 : position + 8])[0]
        body = data[position + 8 : position + 8 + size]
        if chunk == b"fmt ":
            tag, channels = struct.unpack("<HH", body[:4])
            assert tag in (3, 0xFFFE)  # IEEE float (plain or extensible)
        elif chunk == b"data":
            return np.frombuffer(body, dtype="<f4").reshape(-1, channels).T
        position += 8 + size + (size & 1)
    raise AssertionError("no data chunk")


@pytest.mark.parametrize("instrument,score", [("guitar.toml", "guitar-phrase.toml"), ("drum.toml", "drum-score.toml")])
def test_render_equals_the_cli(hooke_bin, examples, tmp_path, instrument, score):
    folder = examples / "instruments"
    out = tmp_path / "out.wav"
    subprocess.run(
        [str(hooke_bin), "render", str(folder / instrument), str(folder / score), "-o", str(out), "--format", "f32", "--no-normalize"],
        check=True,
        capture_output=True,
    )
    expected = read_float_wav(out)
    audio = hooke.render(folder / instrument, folder / score)
    assert audio.dtype == np.float64 and audio.shape == expected.shape
    assert np.array_equal(audio.astype(np.float32), expected)


def test_a_performance_renders_in_blocks_as_at_once(examples):
    folder = examples / "instruments"
    whole = hooke.render(folder / "guitar.toml", folder / "guitar-phrase.toml")
    performance = hooke.perform(folder / "guitar.toml", folder / "guitar-phrase.toml")
    assert performance.rate == 44100 and performance.oversample >= 1 and performance.duration == 5.0
    blocks = []
    while performance.step < performance.total_steps:
        blocks.append(performance.render(1024))
    blocks.append(performance.finish())
    assert np.array_equal(np.concatenate(blocks, axis=1), whole)
    assert whole.shape[1] == round(5.0 * 44100)


def test_a_broken_score_names_its_line(tmp_path, examples):
    score = tmp_path / "score.toml"
    score.write_text('[score]\nduration = 1.0\n\n[[pluck]]\ntime = 0.1\nstring = "high-z"\n')
    with pytest.raises(hooke.ModelError) as caught:
        hooke.perform(examples / "instruments" / "guitar.toml", score)
    assert caught.value.file == str(score) and caught.value.line >= 4
