//! The signal of a model file's `[[force]]` or a score's `[[drive]]`: exactly one of `constant`,
//! `sinusoids` or `wav` (with `channel` and `gain`). The WAV file is read here, relative to the
//! file's folder.

use crate::io;
use crate::model::{ModelError, Samples, Signal, Sinusoid};
use std::path::Path;

/// The signal fields of an element, as given.
pub(crate) struct SignalFields<'a> {
    pub(crate) constant: Option<f64>,
    pub(crate) sinusoids: Option<&'a [Sinusoid]>,
    pub(crate) wav: Option<&'a str>,
    pub(crate) channel: Option<usize>,
    pub(crate) gain: Option<f64>,
}

/// Where a signal's error is: on a field of the element (`None`) or of sinusoid `i`
/// (`Some(i)`, 0-based).
pub(crate) type SignalError = (Option<usize>, ModelError);

/// The signal the fields give, checked. `subject` names the element (`force on "reed"`); WAV
/// files are read relative to `folder` (the current directory when `None`).
pub(crate) fn signal(
    subject: &str,
    fields: &SignalFields<'_>,
    folder: Option<&Path>,
) -> Result<Signal, SignalError> {
    let on_field = |error: ModelError| (None, error);
    let given: Vec<&'static str> = [
        ("constant", fields.constant.is_some()),
        ("sinusoids", fields.sinusoids.is_some()),
        ("wav", fields.wav.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, given)| given.then_some(name))
    .collect();
    match given[..] {
        [] => {
            return Err(on_field(ModelError::new(
                subject,
                "signal",
                "one of `constant`, `sinusoids` or `wav`",
                "none of them",
            )))
        }
        [_] => {}
        [first, second, ..] => {
            return Err(on_field(ModelError::new(
                subject,
                second,
                "only one of `constant`, `sinusoids` or `wav`",
                format!("`{first}` and `{second}`"),
            )))
        }
    }
    if fields.wav.is_none() {
        for (name, given) in [("channel", fields.channel.is_some()), ("gain", fields.gain.is_some())] {
            if given {
                return Err(on_field(ModelError::new(
                    subject,
                    name,
                    format!("`{name}` only with `wav`"),
                    "no `wav`",
                )));
            }
        }
    }
    let signal = match (fields.constant, fields.sinusoids, fields.wav) {
        (Some(value), _, _) => Signal::Constant(value),
        (_, Some(terms), _) => {
            for (i, term) in terms.iter().enumerate() {
                term.check(&format!("{subject}, sinusoid {}", i + 1)).map_err(|e| (Some(i), e))?;
            }
            Signal::Sinusoids(terms.to_vec())
        }
        (_, _, wav) => {
            Signal::Samples(read_wav(subject, wav.unwrap_or(""), fields, folder).map_err(on_field)?)
        }
    };
    signal.check(subject).map_err(on_field)?;
    Ok(signal)
}

/// Reads the channel the fields name from the WAV file `name`, full scale = 1: integer samples
/// are divided by `2^(bits - 1)`, float samples are taken as they are.
fn read_wav(
    subject: &str,
    name: &str,
    fields: &SignalFields<'_>,
    folder: Option<&Path>,
) -> Result<Samples, ModelError> {
    let path = match folder {
        Some(folder) => folder.join(name),
        None => Path::new(name).to_path_buf(),
    };
    let unreadable = |e: io::WavReadError| {
        ModelError::new(subject, "wav", "a readable WAV file", format!("\"{}\" ({e})", path.display()))
    };
    let gain = fields.gain.ok_or_else(|| {
        ModelError::new(subject, "gain", "`gain` (N at full scale; required with `wav`)", "nothing")
    })?;
    let channel = fields.channel.unwrap_or(1);
    let wav = io::read_wav(&path).map_err(unreadable)?;
    if channel == 0 || channel > wav.channels {
        return Err(ModelError::new(
            subject,
            "channel",
            format!("a channel of \"{}\" (1 to {})", path.display(), wav.channels),
            channel,
        ));
    }
    Ok(Samples { rate: wav.rate, gain, values: wav.channel(channel - 1) })
}
