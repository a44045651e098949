//! Microtuning: which frequency each MIDI note sounds, from a Scala scale and keyboard map.
//!
//! A [`Scale`] lists the pitches of its degrees `1..=n` above degree 0 (the tonic, `1/1`) in
//! cents; its last degree is the period (the formal octave), after which the degrees repeat.
//! A [`KeyboardMap`] says which degree each key plays and which key sounds which frequency, as
//! the Scala `.kbm` format does (Manuel Op de Coul, *Scala* file formats,
//! <https://www.huygens-fokker.org/scala/help.htm#mappings>): key `k` is `k - middle` keys from
//! the map's middle note; with a map of size `m > 0` that is entry `(k - middle) mod m` of the
//! pattern, `floor((k - middle) / m)` repetitions of the pattern up, each repetition rising by
//! the pitch of the map's octave degree; with `m = 0` key `k` plays degree `k - middle` (a
//! linear map). The reference key sounds the reference frequency, and every other key sounds
//! it times `2^((c(k) - c(reference)) / 1200)`, `c` the pitch of a key's degree in cents.
//!
//! A string sounds a note's frequency by its fret or key in 12-tone equal temperament (the
//! nearest note, [`Retuned::note`]) and a tension factor for the rest (the pitch goes as the
//! square root of the tension): [`Tuning::retune`].

use super::notes::midi_note;

/// A scale: the pitch of each degree `1..=n` above the tonic, cents (the last is the period).
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    /// The description line of its file.
    pub description: String,
    /// Degrees `1..=n`, cents above degree 0; the last is the period.
    pub cents: Vec<f64>,
}

impl Scale {
    /// The pitch of degree `degree` (any integer) in cents above degree 0: whole periods plus
    /// the degree within one.
    pub fn degree_cents(&self, degree: i64) -> f64 {
        let n = self.cents.len() as i64;
        let (periods, within) = (degree.div_euclid(n), degree.rem_euclid(n));
        let period = self.cents[self.cents.len() - 1];
        periods as f64 * period + if within == 0 { 0.0 } else { self.cents[within as usize - 1] }
    }
}

/// Which scale degree each key plays, and the frequency of one key (a Scala `.kbm` file).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyboardMap {
    /// Keys in the repeating pattern (0: a linear map, every key the next degree).
    pub size: usize,
    /// The lowest and highest keys retuned (MIDI notes 0-127); others are not played.
    pub first: u8,
    /// See [`KeyboardMap::first`].
    pub last: u8,
    /// The key that plays the pattern's first entry (degree 0 on a linear map).
    pub middle: u8,
    /// The key whose frequency is given.
    pub reference: u8,
    /// Its frequency, Hz.
    pub reference_hz: f64,
    /// The degree whose pitch each repetition of the pattern rises by (0: the scale's period).
    pub octave_degree: usize,
    /// The pattern: each entry's degree, `None` for a key left unmapped (`x`); entries past
    /// its end (up to `size`) are unmapped too.
    pub pattern: Vec<Option<usize>>,
}

impl Default for KeyboardMap {
    /// The map used with a scale alone: linear, every key retuned, degree 0 on middle C (MIDI
    /// note 60) at its 12-tone equal-temperament frequency with A4 = 440 Hz, 261.626 Hz.
    fn default() -> Self {
        Self {
            size: 0,
            first: 0,
            last: 127,
            middle: 60,
            reference: 60,
            reference_hz: equal_tempered(60),
            octave_degree: 0,
            pattern: Vec::new(),
        }
    }
}

/// A scale on a keyboard.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuning {
    /// The scale.
    pub scale: Scale,
    /// The keyboard map.
    pub map: KeyboardMap,
}

/// A note as a string plays it: the 12-tone equal-temperament note nearest its frequency, and
/// the tension factor that moves that note's pitch to the frequency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retuned {
    /// The nearest MIDI note in 12-tone equal temperament (A4 = 440 Hz).
    pub note: u8,
    /// `(f / f_12)^2`: the tension factor from that note's pitch `f_12` to the frequency `f`.
    pub tension: f64,
}

impl Tuning {
    /// The scale on `map`, which must have a degree and map its reference key; otherwise, why
    /// not.
    pub fn new(scale: Scale, map: KeyboardMap) -> Result<Self, String> {
        if scale.cents.is_empty() {
            return Err("a scale of at least one degree".into());
        }
        let tuning = Self { scale, map };
        match tuning.key_cents(tuning.map.reference) {
            Some(_) => Ok(tuning),
            None => Err(format!(
                "the reference key {} to be mapped (within keys {}-{}, not an `x`)",
                tuning.map.reference, tuning.map.first, tuning.map.last
            )),
        }
    }

    /// The pitch of key `key` in cents above the middle key's degree 0, or `None` where the map
    /// leaves it unplayed.
    fn key_cents(&self, key: u8) -> Option<f64> {
        let map = &self.map;
        if key < map.first || key > map.last {
            return None;
        }
        let offset = i64::from(key) - i64::from(map.middle);
        if map.size == 0 {
            return Some(self.scale.degree_cents(offset));
        }
        let size = map.size as i64;
        // An entry past the pattern's end is unmapped, as the Scala format has it.
        let degree = map.pattern.get(offset.rem_euclid(size) as usize).copied().flatten()?;
        let octave = match map.octave_degree {
            0 => self.scale.degree_cents(self.scale.cents.len() as i64),
            degree => self.scale.degree_cents(degree as i64),
        };
        Some(offset.div_euclid(size) as f64 * octave + self.scale.degree_cents(degree as i64))
    }

    /// The frequency key `key` sounds, Hz, or `None` where the map leaves it unplayed.
    pub fn frequency(&self, key: u8) -> Option<f64> {
        let reference = self.key_cents(self.map.reference)?;
        Some(self.map.reference_hz * 2f64.powf((self.key_cents(key)? - reference) / 1200.0))
    }

    /// Key `key` as a string plays it; `None` where the map leaves it unplayed or its
    /// frequency lies outside the MIDI notes.
    pub fn retune(&self, key: u8) -> Option<Retuned> {
        Retuned::at(self.frequency(key)?)
    }
}

impl Retuned {
    /// The frequency it sounds, Hz: its note's equal-tempered pitch times the square root of
    /// its tension.
    pub fn frequency(&self) -> f64 {
        equal_tempered(self.note) * self.tension.sqrt()
    }

    /// A note of `frequency` (Hz) as a string plays it; `None` outside the MIDI notes.
    pub fn at(frequency: f64) -> Option<Self> {
        let note = u8::try_from(midi_note(frequency)).ok().filter(|&n| n <= 127)?;
        Some(Self::on(note, frequency))
    }

    /// A note of `frequency` (Hz) played on the fret or key of the equal-tempered `note`.
    pub fn on(note: u8, frequency: f64) -> Self {
        let tension = (frequency / equal_tempered(note)).powi(2);
        // An equal-tempered degree is 1 but for rounding: exactly 1, so that it sets nothing.
        Self { note, tension: if (tension - 1.0).abs() < 1e-12 { 1.0 } else { tension } }
    }
}

/// The frequency of MIDI note `note` in 12-tone equal temperament with A4 = 440 Hz, Hz.
fn equal_tempered(note: u8) -> f64 {
    440.0 * 2f64.powf((f64::from(note) - 69.0) / 12.0)
}

/// The key changes a MIDI Tuning Standard system-exclusive message makes (the MIDI
/// Manufacturers Association's *MIDI Tuning Standard*, 1992, and its 2-byte scale/octave
/// extension): `change(key, frequency)` for each key it retunes, frequencies in Hz. `message`
/// is the message with or without its `F0` and `F7`. Read: the single-note tuning change
/// (real-time `7F .. 08 02`, and with a bank, `7E`/`7F .. 08 07`), the bulk tuning dump (`7E ..
/// 08 01`, all 128 keys), and the scale/octave tunings (`7E`/`7F .. 08 08` in 1-byte cents,
/// `08 09` in 2-byte), which retune every key of a pitch class (the channel mask is not read:
/// one tuning for every channel). A frequency is a key `xx` and a fraction `yy zz` of a
/// semitone above it in units of 2^-14 (`7F 7F 7F`: no change). Tuning programs and banks are
/// not kept apart: each message retunes the keys now. Returns whether the message is one of
/// these; a short or malformed one changes nothing.
pub fn tuning_changes(message: &[u8], mut change: impl FnMut(u8, f64)) -> bool {
    let message = message.strip_prefix(&[0xf0]).unwrap_or(message);
    let message = message.strip_suffix(&[0xf7]).unwrap_or(message);
    let frequency = |data: &[u8]| match *data {
        [0x7f, 0x7f, 0x7f] => None,
        [xx, yy, zz] if xx < 0x80 && yy < 0x80 && zz < 0x80 => {
            let fraction = f64::from(u16::from(yy) << 7 | u16::from(zz)) / 16384.0;
            Some(440.0 * 2f64.powf((f64::from(xx) + fraction - 69.0) / 12.0))
        }
        _ => None,
    };
    let keyed = |entries: &[u8], count: u8, change: &mut dyn FnMut(u8, f64)| {
        for entry in entries.chunks_exact(4).take(usize::from(count)) {
            if let (key @ 0..=127, Some(f)) = (entry[0], frequency(&entry[1..])) {
                change(key, f);
            }
        }
    };
    match message {
        [0x7f, _, 0x08, 0x02, _, count, entries @ ..] => keyed(entries, *count, &mut change),
        [0x7e | 0x7f, _, 0x08, 0x07, _, _, count, entries @ ..] => keyed(entries, *count, &mut change),
        [0x7e, _, 0x08, 0x01, _, rest @ ..] if rest.len() >= 16 + 3 * 128 => {
            for (key, data) in rest[16..16 + 3 * 128].chunks_exact(3).enumerate() {
                if let Some(f) = frequency(data) {
                    change(key as u8, f);
                }
            }
        }
        [0x7e | 0x7f, _, 0x08, form @ (0x08 | 0x09), _, _, _, offsets @ ..] => {
            let width = usize::from(*form - 0x07);
            if offsets.len() < 12 * width {
                return false;
            }
            for key in 0..=127u8 {
                let value = &offsets[usize::from(key % 12) * width..][..width];
                let cents = match *value {
                    [v] => f64::from(v) - 64.0,
                    [msb, lsb] => (f64::from(u16::from(msb) << 7 | u16::from(lsb)) - 8192.0) / 8192.0 * 100.0,
                    _ => unreachable!("one or two bytes"),
                };
                change(key, equal_tempered(key) * 2f64.powf(cents / 1200.0));
            }
        }
        _ => return false,
    }
    true
}

/// A tuning asked of an instrument that plays no strings.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the {instrument} plays {played}, which sound as built: a tuning retunes strings, by their tension")]
pub struct Untunable {
    /// The instrument's kind.
    pub instrument: String,
    /// What it plays (`a body`, `bars`, `plates`, `a membrane`).
    pub played: &'static str,
}
