//! Results written in one call: a WAV file and a run's CSV trajectory, each appearing under
//! its name only when complete; an unstable run keeps its rows and reports the failing step.

use hooke::engine::{Engine, EngineConfig, Pickups, RunError};
use hooke::format::model::parse;
use hooke::io::{write_csv_file, write_wav_file, CsvError, SampleFormat, WavOptions};
use hooke::system::System;

fn folder(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hooke-files-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_wav_is_written_in_one_call() {
    let dir = folder("wav");
    let path = dir.join("two.wav");
    let channels = vec![vec![0.0, 0.5, -0.25], vec![1.0, 0.0, 0.0]];
    let options = WavOptions { format: SampleFormat::Float32, normalize: false };
    let report = write_wav_file(&path, &channels, 8000, options).unwrap();
    assert_eq!((report.gain, report.peak), (1.0, 1.0));
    let reader = hound::WavReader::open(&path).unwrap();
    assert_eq!((reader.spec().channels, reader.spec().sample_rate, reader.duration()), (2, 8000, 3));
    let samples: Vec<f32> = reader.into_samples().map(Result::unwrap).collect();
    assert_eq!(samples, [0.0, 1.0, 0.5, 0.0, -0.25, 0.0]);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file left");
}

fn oscillator(stiffness: f64) -> Engine {
    let source = format!(
        "[model]\ndimension = 1\n[[anchor]]\nid = \"wall\"\nposition = 0.0\n[[mass]]\nid = \"m\"\nmass = 1.0\n\
         position = 0.1\n[[spring]]\na = \"wall\"\nb = \"m\"\nstiffness = {stiffness}\n"
    );
    let file = parse(&source, "oscillator.toml").unwrap();
    let config = EngineConfig::default().rate(100.0);
    Engine::from_system(System::new(&file.model), Pickups::default(), config).unwrap()
}

#[test]
fn a_trajectory_is_written_in_one_call() {
    let dir = folder("csv");
    let path = dir.join("run.csv");
    let mut engine = oscillator(100.0);
    write_csv_file(&path, &mut engine, 10, 5, true).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "step,t,m.x,m.vx,kinetic,potential,total");
    // Steps 0, 5 and 10.
    assert_eq!(lines.len(), 4);
    assert!(lines[1].starts_with("0,0.0,0.1,0.0,"));
    assert!(lines[3].starts_with("10,"));
    // Symplectic Euler by hand (Morgan & Qiao 2009, eq. (26)): v' = v - h k x / m, x' = x + h v'.
    let (mut x, mut v) = (0.1f64, 0.0f64);
    for _ in 0..5 {
        v -= 0.01 * 100.0 * x;
        x += 0.01 * v;
    }
    let row: Vec<f64> = lines[2].split(',').map(|c| c.parse().unwrap()).collect();
    assert_eq!(row[0], 5.0);
    assert!((row[2] - x).abs() < 1e-15 && (row[3] - v).abs() < 1e-15, "{row:?} against x {x}, v {v}");
}

#[test]
fn an_unstable_run_keeps_its_rows_and_names_the_step() {
    let dir = folder("unstable");
    let path = dir.join("run.csv");
    // w h = 30 > 2: symplectic Euler grows by about w^2 h^2 per step and overflows.
    let mut engine = oscillator(9e6);
    let error = write_csv_file(&path, &mut engine, 10_000, 1, false).unwrap_err();
    let CsvError::Run(RunError::NonFinite { step, .. }) = error else { panic!("{error}") };
    let rows = std::fs::read_to_string(&path).unwrap().lines().count() as u64 - 1;
    assert_eq!(rows, step, "steps 0 .. {} written", step - 1);
}

#[test]
fn a_wav_that_cannot_hold_its_samples_or_holds_no_sound_is_refused_before_a_byte_is_written() {
    use hooke::io::{check_wav_size, WavError};
    // A RIFF file's sizes are 32-bit: 2^32 - 1 bytes in all, 44 of them header.
    let limit_frames = (u64::from(u32::MAX) - 44) / 4;
    assert!(check_wav_size(limit_frames, 1, SampleFormat::Float32).is_ok());
    let error = check_wav_size(limit_frames + 1, 1, SampleFormat::Float32).unwrap_err();
    assert!(matches!(error, WavError::TooLarge { .. }), "{error}");
    assert!(error.to_string().contains("more than the 4294967251 a WAV file can hold"), "{error}");
    assert!(check_wav_size(limit_frames + 1, 1, SampleFormat::Int16).is_ok(), "2-byte samples fit");
    assert!(matches!(check_wav_size(10, 0, SampleFormat::Int16), Err(WavError::NoChannels)));

    let dir = folder("wav-refused");
    let path = dir.join("bad.wav");
    let options = WavOptions { format: SampleFormat::Float32, normalize: false };
    let error = write_wav_file(&path, &[vec![0.0, f64::INFINITY]], 8000, options).unwrap_err();
    assert_eq!(
        error.to_string(),
        "channel 1, frame 1: the sample is inf, not a finite number; nothing written"
    );
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no file, no temporary file");
}

#[test]
fn two_writers_to_one_target_leave_one_whole_file_and_no_temporary_one() {
    use hooke::io::AtomicFile;
    use std::io::Write;
    let dir = folder("two-writers");
    let target = dir.join("out.txt");
    let mut first = AtomicFile::create(&target).unwrap();
    let mut second = AtomicFile::create(&target).unwrap();
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "each writer has its own temporary file: {names:?}");
    first.write_all(&[b'a'; 10_000]).unwrap();
    second.write_all(&[b'b'; 20_000]).unwrap();
    first.commit().unwrap();
    second.commit().unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), vec![b'b'; 20_000], "the last commit, whole");
    // A writer dropped before its commit leaves nothing behind.
    let mut abandoned = AtomicFile::create(&dir.join("never.txt")).unwrap();
    abandoned.write_all(b"partial").unwrap();
    drop(abandoned);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    // A link planted at a predictable temporary name cannot redirect a write: the name is random.
    let third = AtomicFile::create(&target).unwrap();
    let fourth = AtomicFile::create(&target).unwrap();
    let mut temporary: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    temporary.retain(|n| n != "out.txt");
    assert_eq!(temporary.len(), 2);
    assert_ne!(temporary[0], temporary[1]);
    drop((third, fourth));
}
