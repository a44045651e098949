//! The shipped instruments (`examples/instruments/*.toml`), embedded in the plugin as its
//! presets: the plugin needs no files beside its bundle.

use nice_plug::prelude::Enum;

/// A shipped instrument. The ids are stable (saved in the hosts' projects); the order is the
/// preset parameter's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum Preset {
    /// The steel-string guitar on a body (the default).
    #[id = "acoustic-guitar"]
    #[name = "Acoustic guitar"]
    AcousticGuitar,
    /// Six strings, no body.
    #[id = "guitar"]
    #[name = "Guitar"]
    Guitar,
    /// Ten keys, three strings each, on a soundboard.
    #[id = "piano"]
    #[name = "Piano"]
    Piano,
    /// Bars from G3 to C6.
    #[id = "marimba"]
    #[name = "Marimba"]
    Marimba,
    /// Four bell plates.
    #[id = "plates"]
    #[name = "Bell plates"]
    Plates,
    /// A tom-like membrane.
    #[id = "drum"]
    #[name = "Drum"]
    Drum,
    /// A played string over a barrier, and sympathetic strings.
    #[id = "sitar"]
    #[name = "Sitar"]
    Sitar,
    /// A clarinet reed.
    #[id = "reed"]
    #[name = "Reed"]
    Reed,
    /// An elastic pendulum.
    #[id = "pendulum"]
    #[name = "Pendulum"]
    Pendulum,
    /// Four church bells.
    #[id = "bell"]
    #[name = "Church bells"]
    Bell,
}

impl Preset {
    /// The name the host shows.
    pub fn name(self) -> &'static str {
        Self::variants()[self.to_index()]
    }

    /// The instrument file's name (as its errors name it) and text.
    pub fn file(self) -> (&'static str, &'static str) {
        macro_rules! shipped {
            ($name:literal) => {
                ($name, include_str!(concat!("../../../examples/instruments/", $name)))
            };
        }
        match self {
            Preset::AcousticGuitar => shipped!("acoustic-guitar.toml"),
            Preset::Guitar => shipped!("guitar.toml"),
            Preset::Piano => shipped!("piano.toml"),
            Preset::Marimba => shipped!("marimba.toml"),
            Preset::Plates => shipped!("plates.toml"),
            Preset::Drum => shipped!("drum.toml"),
            Preset::Sitar => shipped!("sitar.toml"),
            Preset::Reed => shipped!("reed.toml"),
            Preset::Pendulum => shipped!("pendulum.toml"),
            Preset::Bell => shipped!("bell.toml"),
        }
    }
}
