//! Writing results: WAV and CSV, through files that appear under their name only when complete.

mod atomic;
mod csv;
mod wav;

pub use atomic::AtomicFile;
pub use csv::{write_csv_file, CsvError, CsvWriter};
pub use wav::{write_wav, write_wav_file, SampleFormat, WavOptions, WavReport};
