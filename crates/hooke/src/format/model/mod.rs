//! The TOML model format (docs/model-format.md): the model, the run settings and the outputs.
//! Every error names the file, line and column of the offending text.
//!
//! The format is a serde view of the model's own spec types: `[[mass]]` reads a [`Mass`],
//! `[[spring]]` a [`Spring`], `[[string]]` a [`StringSpec`], `[[pickup]]` a [`PickupSpec`], each
//! added through the same validating method a program calls. Unknown fields and wrong types are caught by serde; a rule broken when an
//! element is added is placed on the field the [`ModelError`] names. Only the shapes that exist
//! in files alone have their own readers here: a `[[force]]`'s signal fields and WAV file, and
//! the `[run]` and `[output]` settings (module `settings`).
//!
//! A `[[force]]` may read a WAV file; its path is relative to the model file's folder with
//! [`load`] and [`parse_relative_to`], and to the current directory with [`parse`].

mod settings;

use super::signal::{signal, SignalFields};
use super::source::{read_source, Document, SourceError, Step};
use crate::engine::{PartialRunSettings, PickupSpec, Pickups};
use crate::io::WavOptions;
use crate::model::{
    de, Anchor, Angle, BarSpec, BarrierSpec, Bending, BodySpec, ChainSpec, CollisionSpec, Damper, ForceSpec,
    Initial, Mass, MembraneSpec, Model, ModelError, PlateSpec, Sinusoid, Spring, StringSpec,
};
use serde::Deserialize;
use settings::{OutputFields, RunFields};
use std::mem::take;
use std::path::Path;
use Step::{Index, Key};

/// Everything a model file holds, validated.
#[derive(Debug, Clone)]
pub struct ModelFile {
    /// Optional display name (`[model] name`).
    pub name: Option<String>,
    /// Optional free text (`[model] description`).
    pub description: Option<String>,
    /// The network.
    pub model: Model,
    /// Run settings the file gives (`[run]`).
    pub run: PartialRunSettings,
    /// Output channels (`[[pickup]]`); when the file has none, one channel summing every
    /// mass's first coordinate.
    pub pickups: Pickups,
    /// WAV encoding (`[output]`).
    pub wav: WavOptions,
}

/// Parses and validates a model file. `file` names the source in error messages. Files the
/// model refers to (`[[force]] wav`) are read relative to the current directory; use [`load`]
/// or [`parse_relative_to`] for paths relative to the model file.
pub fn parse(source: &str, file: &str) -> Result<ModelFile, SourceError> {
    parse_in(source, file, None)
}

/// Like [`parse`], with the files the model refers to (`[[force]] wav`) read relative to
/// `folder` (normally the model file's folder; absolute paths are used as they are).
pub fn parse_relative_to(source: &str, file: &str, folder: &Path) -> Result<ModelFile, SourceError> {
    parse_in(source, file, Some(folder))
}

/// Reads, parses and validates the model file at `path`; the files it refers to are read
/// relative to its folder. Errors name `path` as the file; a file that cannot be read is an
/// error at line 1, column 1.
pub fn load(path: &Path) -> Result<ModelFile, SourceError> {
    let (file, source) = read_source(path, "model")?;
    parse_relative_to(&source, &file, path.parent().unwrap_or(Path::new("")))
}

fn parse_in(source: &str, file: &str, folder: Option<&Path>) -> Result<ModelFile, SourceError> {
    let document = Document::parse(file, source)?;
    let tables: Tables = document.read()?;
    tables.build(&document, folder)
}

/// The tables of a model file, each read as the spec type it describes.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Tables {
    model: Header,
    #[serde(default)]
    anchor: Vec<Anchor>,
    #[serde(default)]
    mass: Vec<Mass>,
    #[serde(default)]
    spring: Vec<Spring>,
    #[serde(default)]
    damper: Vec<Damper>,
    #[serde(default)]
    bending: Vec<Bending>,
    #[serde(default)]
    angle: Vec<Angle>,
    #[serde(default)]
    string: Vec<StringSpec>,
    #[serde(default)]
    membrane: Vec<MembraneSpec>,
    #[serde(default)]
    chain: Vec<ChainSpec>,
    #[serde(default)]
    bar: Vec<BarSpec>,
    #[serde(default)]
    plate: Vec<PlateSpec>,
    #[serde(default)]
    body: Vec<BodySpec>,
    #[serde(default)]
    barrier: Vec<BarrierSpec>,
    #[serde(default)]
    collision: Vec<CollisionSpec>,
    #[serde(default)]
    force: Vec<ForceFields>,
    #[serde(default)]
    initial: Vec<Initial>,
    run: Option<RunFields>,
    #[serde(default)]
    pickup: Vec<PickupSpec>,
    output: Option<OutputFields>,
}

/// `[model]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    #[serde(deserialize_with = "de::dimension")]
    dimension: usize,
    #[serde(default, deserialize_with = "de::vector")]
    gravity: Vec<f64>,
    name: Option<String>,
    description: Option<String>,
}

/// `[[force]]`: a [`ForceSpec`] whose signal is written as fields (see [`signal`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForceFields {
    mass: String,
    #[serde(default, deserialize_with = "de::axis")]
    axis: usize,
    constant: Option<f64>,
    sinusoids: Option<Vec<Sinusoid>>,
    wav: Option<String>,
    channel: Option<usize>,
    gain: Option<f64>,
}

/// The tables that make nodes, which are added in file order, interleaved.
#[derive(Clone, Copy)]
enum NodeTable {
    Anchor,
    Mass,
    String,
    Membrane,
    Chain,
    Bar,
    Plate,
    Body,
}

impl NodeTable {
    fn name(self) -> &'static str {
        match self {
            Self::Anchor => "anchor",
            Self::Mass => "mass",
            Self::String => "string",
            Self::Membrane => "membrane",
            Self::Chain => "chain",
            Self::Bar => "bar",
            Self::Plate => "plate",
            Self::Body => "body",
        }
    }

    /// The fields of the elements a generator makes that its errors may name, and the
    /// generator's field each one comes from.
    fn aliases(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::Membrane => &[("position", "origin")],
            Self::Chain => &[("b", "to")],
            _ => &[],
        }
    }
}

impl Tables {
    /// Adds every element to a new model in the order docs/model-format.md gives, placing each
    /// error on the field it names.
    fn build(mut self, document: &Document<'_>, folder: Option<&Path>) -> Result<ModelFile, SourceError> {
        let mut model = Model::new(self.model.dimension).map_err(document.at(&[Key("model")]))?;
        if !self.model.gravity.is_empty() {
            model.set_gravity(&self.model.gravity).map_err(document.at(&[Key("model")]))?;
        }
        self.add_nodes(&mut model, document)?;
        for (i, spring) in self.spring.into_iter().enumerate() {
            model.add_spring(spring).map_err(document.at(&[Key("spring"), Index(i)]))?;
        }
        for (i, damper) in self.damper.into_iter().enumerate() {
            model.add_damper(damper).map_err(document.at(&[Key("damper"), Index(i)]))?;
        }
        for (i, bending) in self.bending.into_iter().enumerate() {
            model.add_bending(bending).map_err(document.at(&[Key("bending"), Index(i)]))?;
        }
        for (i, angle) in self.angle.into_iter().enumerate() {
            model.add_angle(angle).map_err(document.at(&[Key("angle"), Index(i)]))?;
        }
        for (i, barrier) in self.barrier.into_iter().enumerate() {
            model.add_barrier(barrier).map_err(document.at(&[Key("barrier"), Index(i)]))?;
        }
        for (i, collision) in self.collision.into_iter().enumerate() {
            model.add_collision(collision).map_err(document.at(&[Key("collision"), Index(i)]))?;
        }
        for (i, force) in self.force.into_iter().enumerate() {
            add_force(&mut model, force, folder).map_err(|(term, error)| match term {
                Some(j) => document.locate(&[Key("force"), Index(i), Key("sinusoids"), Index(j)], &error),
                None => document.locate(&[Key("force"), Index(i)], &error),
            })?;
        }
        for (i, initial) in self.initial.into_iter().enumerate() {
            model.set_initial(initial).map_err(document.at(&[Key("initial"), Index(i)]))?;
        }
        let pickups = if self.pickup.is_empty() {
            Pickups::sum_of_all_masses(&model)
        } else {
            Pickups::new(&self.pickup, &model)
                .map_err(|e| document.locate(&[Key("pickup"), Index(e.index)], &e.error))?
        };
        let run = match self.run {
            Some(run) => run.settings().map_err(document.at(&[Key("run")]))?,
            None => PartialRunSettings::default(),
        };
        let wav = match self.output {
            Some(output) => output.options().map_err(document.at(&[Key("output")]))?,
            None => WavOptions::default(),
        };
        let Header { name, description, .. } = self.model;
        Ok(ModelFile { name, description, model, run, pickups, wav })
    }

    /// Adds every anchor, mass and generator in the order they appear in the file.
    fn add_nodes(&mut self, model: &mut Model, document: &Document<'_>) -> Result<(), SourceError> {
        let counts = [
            (NodeTable::Anchor, self.anchor.len()),
            (NodeTable::Mass, self.mass.len()),
            (NodeTable::String, self.string.len()),
            (NodeTable::Membrane, self.membrane.len()),
            (NodeTable::Chain, self.chain.len()),
            (NodeTable::Bar, self.bar.len()),
            (NodeTable::Plate, self.plate.len()),
            (NodeTable::Body, self.body.len()),
        ];
        let mut order: Vec<(usize, NodeTable, usize)> = counts
            .into_iter()
            .flat_map(|(table, count)| (0..count).map(move |i| (table, i)))
            .map(|(table, i)| {
                let start = document.span(&[Key(table.name()), Index(i)]).map_or(0, |span| span.start);
                (start, table, i)
            })
            .collect();
        order.sort_by_key(|&(start, _, _)| start);
        for (_, table, i) in order {
            let added = match table {
                NodeTable::Anchor => model.add_anchor(take(&mut self.anchor[i])).map(drop),
                NodeTable::Mass => model.add_mass(take(&mut self.mass[i])).map(drop),
                NodeTable::String => model.add_string(take(&mut self.string[i])).map(drop),
                NodeTable::Membrane => model.add_membrane(take(&mut self.membrane[i])).map(drop),
                NodeTable::Chain => model.add_chain(take(&mut self.chain[i])).map(drop),
                NodeTable::Bar => model.add_bar(take(&mut self.bar[i])).map(drop),
                NodeTable::Plate => model.add_plate(&self.plate[i]).map(drop),
                NodeTable::Body => model.add_body(take(&mut self.body[i])).map(drop),
            };
            added.map_err(|error| {
                document.locate_as(&[Key(table.name()), Index(i)], &error, table.aliases())
            })?;
        }
        Ok(())
    }
}

/// Adds a `[[force]]`: its signal read from its fields, then the force through the model.
fn add_force(
    model: &mut Model,
    force: ForceFields,
    folder: Option<&Path>,
) -> Result<(), (Option<usize>, ModelError)> {
    let subject = format!("force on \"{}\"", force.mass);
    let fields = SignalFields {
        constant: force.constant,
        sinusoids: force.sinusoids.as_deref(),
        wav: force.wav.as_deref(),
        channel: force.channel,
        gain: force.gain,
    };
    let signal = signal(&subject, &fields, folder)?;
    model.add_force(ForceSpec::new(force.mass, signal).axis(force.axis)).map_err(|e| (None, e))
}
