//! Writing results: WAV and CSV, through files that appear under their name only when complete.

mod atomic;
mod csv;
mod wav;

pub use atomic::AtomicFile;
pub use csv::CsvWriter;
pub use wav::{write_wav, SampleFormat, WavOptions, WavReport};
