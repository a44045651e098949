//! Writing results: WAV and CSV, through files that appear under their name only when complete;
//! reading WAV files.

mod atomic;
mod csv;
mod wav;
mod wav_read;

pub use atomic::{check_writable, AtomicFile, STALE_AGE};
pub use csv::{write_csv_file, CsvError, CsvWriter};
pub use wav::{check_wav_size, write_wav, write_wav_file, SampleFormat, WavError, WavOptions, WavReport};
pub use wav_read::{read_wav, WavReadError, WavSamples};
