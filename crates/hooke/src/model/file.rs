//! The TOML model format (documented in docs/model-format.md): the model, the run settings and
//! the outputs. Every error names the file, line and column of the offending text.
//!
//! Parsing goes in two stages: serde reads the text into `Raw*` structs that keep the source
//! span of every field (unknown fields and wrong types are caught here, by the `toml` crate);
//! then each element is added to a [`Model`] through its validating methods, and a rule broken
//! there is reported at the span of the field it names.
//!
//! A `[[force]]` may read a WAV file; its path is relative to the model file's folder with
//! [`load`] and [`parse_relative_to`], and to the current directory with [`parse`].

use super::generate::{self, ChainSpec, Elements, MembraneSpec, Pluck, StringSpec};
use super::{
    check_sinusoid, BarrierSpec, CollisionSpec, ForceSpec, LinkSpec, Mass, MassSelection, Model, ModelError,
    Node, Samples, Signal, Sinusoid, SourceError,
};
use crate::engine::{PartialRunSettings, PickupSpec, Pickups, Quantity, RunLength, StepSize};
use crate::io::{SampleFormat, WavOptions};
use crate::scheme::SchemeKind;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

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
    let file = path.display().to_string();
    let source = std::fs::read_to_string(path)
        .map_err(|e| SourceError::at(&file, "", 0..0, format!("cannot read the model file: {e}")))?;
    parse_relative_to(&source, &file, path.parent().unwrap_or(Path::new("")))
}

fn parse_in(source: &str, file: &str, folder: Option<&Path>) -> Result<ModelFile, SourceError> {
    let raw: RawFile = toml::from_str(source).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        SourceError::at(file, source, span, e.message().trim_end())
    })?;
    let locate =
        |span: Range<usize>, error: ModelError| SourceError::at(file, source, span, error.to_string());
    raw.build(folder).map_err(|(span, error)| locate(span, error))
}

/// A validation error and the span it points at.
pub(crate) type Located = (Range<usize>, ModelError);

/// Span of a raw field, if the field was given.
trait SpanOf {
    fn span_of(&self) -> Option<Range<usize>>;
}
impl<T> SpanOf for Spanned<T> {
    fn span_of(&self) -> Option<Range<usize>> {
        Some(self.span())
    }
}
impl<T> SpanOf for Option<Spanned<T>> {
    fn span_of(&self) -> Option<Range<usize>> {
        self.as_ref().map(Spanned::span)
    }
}

/// Elements whose errors can be placed on one of their fields.
trait FieldSpans {
    /// The span of the field a [`ModelError`] names (`None`: point at the whole element).
    fn field_span(&self, field: &str) -> Option<Range<usize>>;
}

/// Implements [`FieldSpans`] by listing the spanned fields, with optional aliases for the
/// names used by the model's validation (`"density" => linear_density`).
macro_rules! field_spans {
    ($raw:ty { $($field:ident),* $(; $($alias:literal => $target:ident),*)? }) => {
        impl FieldSpans for $raw {
            fn field_span(&self, field: &str) -> Option<Range<usize>> {
                match field {
                    $(stringify!($field) => self.$field.span_of(),)*
                    $($($alias => self.$target.span_of(),)*)?
                    _ => None,
                }
            }
        }
    };
}

/// Places an error on the field it names, or on the whole element.
fn place<T: FieldSpans>(element: &Spanned<T>) -> impl Fn(ModelError) -> Located + '_ {
    move |error| {
        let span = element.get_ref().field_span(error.field).unwrap_or_else(|| element.span());
        (span, error)
    }
}

/// A number or an array of numbers: a position, velocity or gravity vector.
#[derive(Debug, Clone, PartialEq)]
struct Vector(Vec<f64>);

impl<'de> Deserialize<'de> for Vector {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct VectorVisitor;
        impl<'de> Visitor<'de> for VectorVisitor {
            type Value = Vector;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number or an array of numbers (one per dimension)")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Vector, E> {
                Ok(Vector(vec![v]))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vector, E> {
                Ok(Vector(vec![v as f64]))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vector, E> {
                Ok(Vector(vec![v as f64]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vector, A::Error> {
                let mut components = Vec::new();
                while let Some(c) = seq.next_element::<f64>()? {
                    components.push(c);
                }
                Ok(Vector(components))
            }
        }
        deserializer.deserialize_any(VectorVisitor)
    }
}

/// The `masses` of a barrier: one id or prefix pattern (`"s.*"`), or an array of ids.
#[derive(Debug, Clone, PartialEq)]
enum MassList {
    One(String),
    Many(Vec<String>),
}

impl<'de> Deserialize<'de> for MassList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MassListVisitor;
        impl<'de> Visitor<'de> for MassListVisitor {
            type Value = MassList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mass id, a prefix pattern such as \"s.*\", or an array of mass ids")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MassList, E> {
                Ok(MassList::One(v.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MassList, A::Error> {
                let mut ids = Vec::new();
                while let Some(id) = seq.next_element::<String>()? {
                    ids.push(id);
                }
                Ok(MassList::Many(ids))
            }
        }
        deserializer.deserialize_any(MassListVisitor)
    }
}

impl MassList {
    /// A single string ending in `*` is a prefix pattern; any other string is one id.
    fn selection(&self) -> MassSelection<'_> {
        match self {
            Self::One(text) => match text.strip_suffix('*') {
                Some(prefix) => MassSelection::Prefix(prefix),
                None => MassSelection::Ids(vec![text.as_str()]),
            },
            Self::Many(ids) => MassSelection::Ids(ids.iter().map(String::as_str).collect()),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    model: Spanned<RawHeader>,
    #[serde(default)]
    anchor: Vec<Spanned<RawAnchor>>,
    #[serde(default)]
    mass: Vec<Spanned<RawMass>>,
    #[serde(default)]
    spring: Vec<Spanned<RawSpring>>,
    #[serde(default)]
    damper: Vec<Spanned<RawDamper>>,
    #[serde(default)]
    string: Vec<Spanned<RawString>>,
    #[serde(default)]
    membrane: Vec<Spanned<RawMembrane>>,
    #[serde(default)]
    chain: Vec<Spanned<RawChain>>,
    #[serde(default)]
    barrier: Vec<Spanned<RawBarrier>>,
    #[serde(default)]
    collision: Vec<Spanned<RawCollision>>,
    #[serde(default)]
    force: Vec<Spanned<RawForce>>,
    #[serde(default)]
    initial: Vec<Spanned<RawInitial>>,
    run: Option<Spanned<RawRun>>,
    #[serde(default)]
    pickup: Vec<Spanned<RawPickup>>,
    output: Option<Spanned<RawOutput>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    dimension: Spanned<usize>,
    gravity: Option<Spanned<Vector>>,
    name: Option<String>,
    description: Option<String>,
}
field_spans!(RawHeader { dimension, gravity });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnchor {
    id: Spanned<String>,
    position: Option<Spanned<Vector>>,
}
field_spans!(RawAnchor { id, position });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMass {
    id: Spanned<String>,
    mass: Spanned<f64>,
    position: Option<Spanned<Vector>>,
    velocity: Option<Spanned<Vector>>,
    drag: Option<Spanned<f64>>,
}
field_spans!(RawMass { id, mass, position, velocity, drag });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpring {
    id: Option<Spanned<String>>,
    a: Spanned<String>,
    b: Spanned<String>,
    stiffness: Spanned<f64>,
    rest_length: Option<Spanned<f64>>,
    damping: Option<Spanned<f64>>,
}
field_spans!(RawSpring { id, a, b, stiffness, rest_length, damping });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDamper {
    id: Option<Spanned<String>>,
    a: Spanned<String>,
    b: Spanned<String>,
    damping: Spanned<f64>,
}
field_spans!(RawDamper { id, a, b, damping });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBarrier {
    id: Option<Spanned<String>>,
    masses: Spanned<MassList>,
    position: Spanned<Vector>,
    normal: Spanned<Vector>,
    stiffness: Spanned<f64>,
    exponent: Spanned<f64>,
}
field_spans!(RawBarrier { id, masses, position, normal, stiffness, exponent });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCollision {
    id: Option<Spanned<String>>,
    a: Spanned<String>,
    b: Spanned<String>,
    distance: Spanned<f64>,
    stiffness: Spanned<f64>,
    exponent: Spanned<f64>,
}
field_spans!(RawCollision { id, a, b, distance, stiffness, exponent });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSinusoid {
    amplitude: Spanned<f64>,
    frequency: Spanned<f64>,
    phase: Option<Spanned<f64>>,
}
field_spans!(RawSinusoid { amplitude, frequency, phase });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawForce {
    mass: Spanned<String>,
    axis: Option<Spanned<String>>,
    constant: Option<Spanned<f64>>,
    sinusoids: Option<Spanned<Vec<Spanned<RawSinusoid>>>>,
    wav: Option<Spanned<String>>,
    channel: Option<Spanned<usize>>,
    gain: Option<Spanned<f64>>,
}
field_spans!(RawForce { mass, axis, constant, sinusoids, wav, channel, gain });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPluck {
    position: f64,
    amplitude: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawString {
    id: Spanned<String>,
    masses: Spanned<usize>,
    mass: Option<Spanned<f64>>,
    stiffness: Option<Spanned<f64>>,
    damping: Option<Spanned<f64>>,
    length: Option<Spanned<f64>>,
    tension: Option<Spanned<f64>>,
    linear_density: Option<Spanned<f64>>,
    decay_time: Option<Spanned<f64>>,
    drag: Option<Spanned<f64>>,
    pluck: Option<Spanned<RawPluck>>,
}
field_spans!(RawString {
    id, masses, mass, stiffness, damping, length, tension, linear_density, decay_time, drag, pluck;
    "density" => linear_density
});

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMembrane {
    id: Spanned<String>,
    columns: Spanned<usize>,
    rows: Spanned<usize>,
    mass: Option<Spanned<f64>>,
    stiffness: Option<Spanned<f64>>,
    damping: Option<Spanned<f64>>,
    spacing: Option<Spanned<f64>>,
    origin: Option<Spanned<Vector>>,
    width: Option<Spanned<f64>>,
    height: Option<Spanned<f64>>,
    tension: Option<Spanned<f64>>,
    surface_density: Option<Spanned<f64>>,
    decay_time: Option<Spanned<f64>>,
    drag: Option<Spanned<f64>>,
}
field_spans!(RawMembrane {
    id, columns, rows, mass, stiffness, damping, spacing, origin, width, height, tension,
    surface_density, decay_time, drag;
    "density" => surface_density, "length" => width, "position" => origin
});

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChain {
    id: Spanned<String>,
    from: Spanned<String>,
    to: Option<Spanned<String>>,
    masses: Spanned<usize>,
    link_length: Spanned<f64>,
    direction: Spanned<Vector>,
    mass: Spanned<f64>,
    stiffness: Spanned<f64>,
    damping: Option<Spanned<f64>>,
}
field_spans!(RawChain {
    id, from, to, masses, link_length, direction, mass, stiffness, damping;
    "b" => to
});

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInitial {
    mass: Spanned<String>,
    position: Option<Spanned<Vector>>,
    displacement: Option<Spanned<Vector>>,
    velocity: Option<Spanned<Vector>>,
}
field_spans!(RawInitial { mass, position, displacement, velocity });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    scheme: Option<Spanned<String>>,
    rate: Option<Spanned<f64>>,
    dt: Option<Spanned<f64>>,
    duration: Option<Spanned<f64>>,
    steps: Option<Spanned<u64>>,
}
field_spans!(RawRun { scheme, rate, dt, duration, steps });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPickup {
    mass: Spanned<String>,
    channel: Option<Spanned<usize>>,
    quantity: Option<Spanned<String>>,
    axis: Option<Spanned<String>>,
    weight: Option<Spanned<f64>>,
}
field_spans!(RawPickup { mass, channel, quantity, axis, weight });

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOutput {
    format: Option<Spanned<String>>,
    normalize: Option<bool>,
}
field_spans!(RawOutput { format });

/// The value of an optional field, or its default.
fn value_or<T: Clone>(field: &Option<Spanned<T>>, default: T) -> T {
    field.as_ref().map_or(default, |s| s.get_ref().clone())
}

/// The value of a field required in this context, or an error naming it.
fn required<T: Clone>(
    subject: &str,
    name: &'static str,
    what: &str,
    field: &Option<Spanned<T>>,
) -> Result<T, ModelError> {
    field
        .as_ref()
        .map(|s| s.get_ref().clone())
        .ok_or_else(|| ModelError::new(subject, name, format!("`{name}` ({what})"), "nothing"))
}

/// A vector field, defaulting to zeros in 1D and required in 2D/3D.
fn position_or_origin(
    subject: &str,
    name: &'static str,
    field: &Option<Spanned<Vector>>,
    dim: usize,
) -> Result<Vec<f64>, ModelError> {
    match field {
        Some(v) => Ok(v.get_ref().0.clone()),
        None if dim == 1 => Ok(vec![0.0]),
        None => Err(ModelError::new(
            subject,
            name,
            format!("`{name}` (m, {dim} components; required in 2D/3D)"),
            "nothing",
        )),
    }
}

/// A node-creating element, for processing in file order.
enum NodeItem<'a> {
    Anchor(&'a Spanned<RawAnchor>),
    Mass(&'a Spanned<RawMass>),
    String(&'a Spanned<RawString>),
    Membrane(&'a Spanned<RawMembrane>),
    Chain(&'a Spanned<RawChain>),
}

impl NodeItem<'_> {
    fn start(&self) -> usize {
        match self {
            Self::Anchor(e) => e.span().start,
            Self::Mass(e) => e.span().start,
            Self::String(e) => e.span().start,
            Self::Membrane(e) => e.span().start,
            Self::Chain(e) => e.span().start,
        }
    }
}

impl RawFile {
    fn build(self, folder: Option<&Path>) -> Result<ModelFile, Located> {
        let header = &self.model;
        let mut model = Model::new(*header.get_ref().dimension.get_ref()).map_err(place(header))?;
        if let Some(g) = &header.get_ref().gravity {
            model.set_gravity(&g.get_ref().0).map_err(place(header))?;
        }
        let mut nodes: Vec<NodeItem> = Vec::new();
        nodes.extend(self.anchor.iter().map(NodeItem::Anchor));
        nodes.extend(self.mass.iter().map(NodeItem::Mass));
        nodes.extend(self.string.iter().map(NodeItem::String));
        nodes.extend(self.membrane.iter().map(NodeItem::Membrane));
        nodes.extend(self.chain.iter().map(NodeItem::Chain));
        nodes.sort_by_key(NodeItem::start);
        for item in nodes {
            match item {
                NodeItem::Anchor(e) => add_anchor(&mut model, e.get_ref()).map_err(place(e))?,
                NodeItem::Mass(e) => add_mass(&mut model, e.get_ref()).map_err(place(e))?,
                NodeItem::String(e) => add_string(&mut model, e.get_ref()).map_err(place(e))?,
                NodeItem::Membrane(e) => add_membrane(&mut model, e.get_ref()).map_err(place(e))?,
                NodeItem::Chain(e) => add_chain(&mut model, e.get_ref()).map_err(place(e))?,
            }
        }
        for e in &self.spring {
            let r = e.get_ref();
            model
                .add_link(LinkSpec {
                    id: r.id.as_ref().map(|s| s.get_ref().as_str()),
                    a: r.a.get_ref(),
                    b: r.b.get_ref(),
                    stiffness: *r.stiffness.get_ref(),
                    rest_length: r.rest_length.as_ref().map(|s| *s.get_ref()),
                    damping: value_or(&r.damping, 0.0),
                })
                .map_err(place(e))?;
        }
        for e in &self.damper {
            let r = e.get_ref();
            model
                .add_link(LinkSpec {
                    id: r.id.as_ref().map(|s| s.get_ref().as_str()),
                    a: r.a.get_ref(),
                    b: r.b.get_ref(),
                    stiffness: 0.0,
                    rest_length: None,
                    damping: *r.damping.get_ref(),
                })
                .map_err(place(e))?;
        }
        for e in &self.barrier {
            add_barrier(&mut model, e.get_ref()).map_err(place(e))?;
        }
        for e in &self.collision {
            add_collision(&mut model, e.get_ref()).map_err(place(e))?;
        }
        for e in &self.force {
            add_force(&mut model, e, folder)?;
        }
        for e in &self.initial {
            apply_initial(&mut model, e.get_ref()).map_err(place(e))?;
        }
        let pickups = build_pickups(&model, &self.pickup)?;
        let run = match &self.run {
            Some(e) => build_run(e.get_ref()).map_err(place(e))?,
            None => PartialRunSettings::default(),
        };
        let wav = match &self.output {
            Some(e) => build_output(e.get_ref()).map_err(place(e))?,
            None => WavOptions::default(),
        };
        Ok(ModelFile {
            name: header.get_ref().name.clone(),
            description: header.get_ref().description.clone(),
            model,
            run,
            pickups,
            wav,
        })
    }
}

fn add_anchor(model: &mut Model, raw: &RawAnchor) -> Result<(), ModelError> {
    let subject = format!("anchor \"{}\"", raw.id.get_ref());
    let position = position_or_origin(&subject, "position", &raw.position, model.dimension())?;
    model.add_anchor(raw.id.get_ref(), &position).map(drop)
}

fn add_mass(model: &mut Model, raw: &RawMass) -> Result<(), ModelError> {
    let subject = format!("mass \"{}\"", raw.id.get_ref());
    let dim = model.dimension();
    let position = position_or_origin(&subject, "position", &raw.position, dim)?;
    model
        .add_mass(Mass {
            id: raw.id.get_ref().clone(),
            mass: *raw.mass.get_ref(),
            position,
            velocity: value_or(&raw.velocity, Vector(vec![0.0; dim])).0,
            drag: value_or(&raw.drag, 0.0),
        })
        .map(drop)
}

/// Either the lumped fields or the physical fields of a string or membrane, never both.
fn elements(
    subject: &str,
    lumped: [(&'static str, &Option<Spanned<f64>>); 3],
    physical: [(&'static str, &Option<Spanned<f64>>); 4],
) -> Result<Elements, ModelError> {
    let given = |fields: &[(&'static str, &Option<Spanned<f64>>)]| {
        fields.iter().find(|(_, f)| f.is_some()).map(|(n, _)| *n)
    };
    let lumped_names = lumped.map(|(n, _)| n).join("/");
    let physical_names = physical.map(|(n, _)| n).join("/");
    match (given(&lumped), given(&physical)) {
        (Some(_), Some(extra)) => Err(ModelError::new(
            subject,
            extra,
            format!("either {lumped_names} or {physical_names}, not both"),
            format!("both, including `{extra}`"),
        )),
        (None, None) => Err(ModelError::new(
            subject,
            "masses",
            format!("element values: {lumped_names} or {physical_names}"),
            "neither",
        )),
        (Some(_), None) => Ok(Elements::Lumped {
            mass: required(subject, lumped[0].0, "kg", lumped[0].1)?,
            stiffness: required(subject, lumped[1].0, "N/m", lumped[1].1)?,
            damping: value_or(lumped[2].1, 0.0),
        }),
        (None, Some(_)) => Ok(Elements::Physical {
            length: required(subject, physical[0].0, "m", physical[0].1)?,
            tension: required(subject, physical[1].0, "N or N/m", physical[1].1)?,
            density: required(subject, physical[2].0, "kg/m or kg/m^2", physical[2].1)?,
            decay_time: physical[3].1.as_ref().map(|s| *s.get_ref()),
        }),
    }
}

fn add_string(model: &mut Model, raw: &RawString) -> Result<(), ModelError> {
    let subject = format!("string \"{}\"", raw.id.get_ref());
    let elements = elements(
        &subject,
        [("mass", &raw.mass), ("stiffness", &raw.stiffness), ("damping", &raw.damping)],
        [
            ("length", &raw.length),
            ("tension", &raw.tension),
            ("linear_density", &raw.linear_density),
            ("decay_time", &raw.decay_time),
        ],
    )?;
    generate::add_string(
        model,
        &StringSpec {
            id: raw.id.get_ref().clone(),
            masses: *raw.masses.get_ref(),
            elements,
            drag: value_or(&raw.drag, 0.0),
            pluck: raw
                .pluck
                .as_ref()
                .map(|p| Pluck { position: p.get_ref().position, amplitude: p.get_ref().amplitude }),
        },
    )
}

fn add_membrane(model: &mut Model, raw: &RawMembrane) -> Result<(), ModelError> {
    let subject = format!("membrane \"{}\"", raw.id.get_ref());
    let elements = elements(
        &subject,
        [("mass", &raw.mass), ("stiffness", &raw.stiffness), ("damping", &raw.damping)],
        [
            ("width", &raw.width),
            ("tension", &raw.tension),
            ("surface_density", &raw.surface_density),
            ("decay_time", &raw.decay_time),
        ],
    )?;
    generate::add_membrane(
        model,
        &MembraneSpec {
            id: raw.id.get_ref().clone(),
            columns: *raw.columns.get_ref(),
            rows: *raw.rows.get_ref(),
            elements,
            height: raw.height.as_ref().map(|s| *s.get_ref()),
            spacing: raw.spacing.as_ref().map(|s| *s.get_ref()),
            origin: raw.origin.as_ref().map(|o| o.get_ref().0.clone()),
            drag: value_or(&raw.drag, 0.0),
        },
    )
}

fn add_chain(model: &mut Model, raw: &RawChain) -> Result<(), ModelError> {
    generate::add_chain(
        model,
        &ChainSpec {
            id: raw.id.get_ref().clone(),
            from: raw.from.get_ref().clone(),
            to: raw.to.as_ref().map(|s| s.get_ref().clone()),
            masses: *raw.masses.get_ref(),
            link_length: *raw.link_length.get_ref(),
            direction: raw.direction.get_ref().0.clone(),
            mass: *raw.mass.get_ref(),
            stiffness: *raw.stiffness.get_ref(),
            damping: value_or(&raw.damping, 0.0),
        },
    )
}

fn add_barrier(model: &mut Model, raw: &RawBarrier) -> Result<(), ModelError> {
    model.add_barrier(BarrierSpec {
        id: raw.id.as_ref().map(|s| s.get_ref().as_str()),
        masses: raw.masses.get_ref().selection(),
        position: &raw.position.get_ref().0,
        normal: &raw.normal.get_ref().0,
        stiffness: *raw.stiffness.get_ref(),
        exponent: *raw.exponent.get_ref(),
    })
}

fn add_collision(model: &mut Model, raw: &RawCollision) -> Result<(), ModelError> {
    model.add_collision(CollisionSpec {
        id: raw.id.as_ref().map(|s| s.get_ref().as_str()),
        a: raw.a.get_ref(),
        b: raw.b.get_ref(),
        distance: *raw.distance.get_ref(),
        stiffness: *raw.stiffness.get_ref(),
        exponent: *raw.exponent.get_ref(),
    })
}

/// `[[force]]`: exactly one of `constant`, `sinusoids` or `wav` (with `channel` and `gain`).
/// Each sinusoid's errors point at its own fields; the WAV file is read here.
fn add_force(model: &mut Model, element: &Spanned<RawForce>, folder: Option<&Path>) -> Result<(), Located> {
    let raw = element.get_ref();
    let at_field = place(element);
    let subject = format!("force on \"{}\"", raw.mass.get_ref());
    let axis = match value_or(&raw.axis, "x".into()).as_str() {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        other => {
            let error = ModelError::new(&subject, "axis", "\"x\", \"y\" or \"z\"", format!("\"{other}\""));
            return Err(at_field(error));
        }
    };
    let signal = signal(&subject, &signal_fields!(raw), folder, &at_field)?;
    model.add_force(ForceSpec { mass: raw.mass.get_ref(), axis, signal }).map_err(at_field)
}

/// The [`SignalFields`] of a raw element that has the fields `constant`, `sinusoids`, `wav`,
/// `channel` and `gain` (a `[[force]]`, a score's `[[drive]]`).
macro_rules! signal_fields {
    ($raw:expr) => {
        $crate::model::file::SignalFields {
            constant: $raw.constant.as_ref(),
            sinusoids: $raw.sinusoids.as_ref(),
            wav: $raw.wav.as_ref(),
            channel: $raw.channel.as_ref(),
            gain: $raw.gain.as_ref(),
        }
    };
}
pub(crate) use signal_fields;

/// The signal fields of a `[[force]]` or of a score's `[[drive]]`.
pub(crate) struct SignalFields<'a> {
    pub(crate) constant: Option<&'a Spanned<f64>>,
    pub(crate) sinusoids: Option<&'a Spanned<Vec<Spanned<RawSinusoid>>>>,
    pub(crate) wav: Option<&'a Spanned<String>>,
    pub(crate) channel: Option<&'a Spanned<usize>>,
    pub(crate) gain: Option<&'a Spanned<f64>>,
}

/// Exactly one of `constant`, `sinusoids` or `wav` (with `channel` and `gain`) as a [`Signal`].
/// Each sinusoid's errors point at its own fields; the WAV file is read here (relative to
/// `folder`); other errors go through `at_field`.
pub(crate) fn signal(
    subject: &str,
    fields: &SignalFields<'_>,
    folder: Option<&Path>,
    at_field: &dyn Fn(ModelError) -> Located,
) -> Result<Signal, Located> {
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
            return Err(at_field(ModelError::new(
                subject,
                "signal",
                "one of `constant`, `sinusoids` or `wav`",
                "none of them",
            )))
        }
        [_] => {}
        [first, second, ..] => {
            return Err(at_field(ModelError::new(
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
                let error = ModelError::new(subject, name, format!("`{name}` only with `wav`"), "no `wav`");
                return Err(at_field(error));
            }
        }
    }
    Ok(if let Some(value) = fields.constant {
        Signal::Constant(*value.get_ref())
    } else if let Some(terms) = fields.sinusoids {
        let mut sinusoids = Vec::with_capacity(terms.get_ref().len());
        for (i, term) in terms.get_ref().iter().enumerate() {
            let t = term.get_ref();
            let sinusoid = Sinusoid {
                amplitude: *t.amplitude.get_ref(),
                frequency: *t.frequency.get_ref(),
                phase: value_or(&t.phase, 0.0),
            };
            check_sinusoid(&format!("{subject}, sinusoid {}", i + 1), &sinusoid).map_err(place(term))?;
            sinusoids.push(sinusoid);
        }
        Signal::Sinusoids(sinusoids)
    } else {
        Signal::Samples(read_wav(subject, fields, folder).map_err(at_field)?)
    })
}

/// Reads the channel a `[[force]]` names from its WAV file, full scale = 1: integer samples
/// are divided by `2^(bits - 1)`, float samples are taken as they are.
fn read_wav(subject: &str, fields: &SignalFields<'_>, folder: Option<&Path>) -> Result<Samples, ModelError> {
    let name = fields.wav.map_or("", |w| w.get_ref().as_str());
    let path = match folder {
        Some(folder) => folder.join(name),
        None => Path::new(name).to_path_buf(),
    };
    let unreadable = |e: hound::Error| {
        ModelError::new(subject, "wav", "a readable WAV file", format!("\"{}\" ({e})", path.display()))
    };
    let gain = required(subject, "gain", "N at full scale; required with `wav`", &fields.gain.cloned())?;
    let channel = fields.channel.map_or(1, |c| *c.get_ref());
    let mut reader = hound::WavReader::open(&path).map_err(unreadable)?;
    let spec = reader.spec();
    let channels = usize::from(spec.channels);
    if channel == 0 || channel > channels {
        return Err(ModelError::new(
            subject,
            "channel",
            format!("a channel of \"{}\" (1 to {channels})", path.display()),
            channel,
        ));
    }
    let interleaved: Vec<f64> = match spec.sample_format {
        hound::SampleFormat::Float => {
            reader.samples::<f32>().map(|s| s.map(f64::from)).collect::<Result<_, _>>().map_err(unreadable)?
        }
        hound::SampleFormat::Int => {
            let full_scale = 2f64.powi(i32::from(spec.bits_per_sample) - 1);
            reader
                .samples::<i32>()
                .map(|s| s.map(|v| f64::from(v) / full_scale))
                .collect::<Result<_, _>>()
                .map_err(unreadable)?
        }
    };
    let values = interleaved.iter().skip(channel - 1).step_by(channels).copied().collect();
    Ok(Samples { rate: f64::from(spec.sample_rate), gain, values })
}

/// `[[initial]]`: sets a mass's position (absolute, or as a displacement added to the one it
/// has) and/or velocity.
fn apply_initial(model: &mut Model, raw: &RawInitial) -> Result<(), ModelError> {
    let id = raw.mass.get_ref();
    let subject = format!("initial condition of \"{id}\"");
    let mass = match model.node(id) {
        Some(Node::Mass(i)) => i,
        _ => {
            return Err(ModelError::new(
                subject,
                "mass",
                "the id of a mass defined in the model",
                format!("\"{id}\""),
            ))
        }
    };
    match (&raw.position, &raw.displacement) {
        (Some(_), Some(_)) => {
            return Err(ModelError::new(
                subject,
                "displacement",
                "either `position` or `displacement`, not both",
                "both",
            ))
        }
        (Some(p), None) => model.set_initial_position(mass, &p.get_ref().0)?,
        (None, Some(d)) => {
            let d = &d.get_ref().0;
            if d.len() != model.dimension() {
                let dim = model.dimension();
                return Err(ModelError::new(
                    subject,
                    "displacement",
                    format!("{dim} component(s) for a {dim}D model"),
                    format!("{} component(s)", d.len()),
                ));
            }
            let moved: Vec<f64> = model.masses()[mass].position.iter().zip(d).map(|(p, d)| p + d).collect();
            model.set_initial_position(mass, &moved)?;
        }
        (None, None) => {}
    }
    if let Some(v) = &raw.velocity {
        model.set_initial_velocity(mass, &v.get_ref().0)?;
    }
    Ok(())
}

fn build_pickups(model: &Model, raw: &[Spanned<RawPickup>]) -> Result<Pickups, Located> {
    if raw.is_empty() {
        return Ok(Pickups::sum_of_all_masses(model));
    }
    let specs =
        raw.iter().map(|e| pickup_spec(e.get_ref()).map_err(place(e))).collect::<Result<Vec<_>, _>>()?;
    Pickups::new(&specs, model).map_err(|(index, error)| place(&raw[index])(error))
}

fn pickup_spec(raw: &RawPickup) -> Result<PickupSpec, ModelError> {
    let subject = format!("pickup on \"{}\"", raw.mass.get_ref());
    let quantity = match value_or(&raw.quantity, "position".into()).as_str() {
        "position" => Quantity::Position,
        "velocity" => Quantity::Velocity,
        other => {
            return Err(ModelError::new(
                subject,
                "quantity",
                "\"position\" or \"velocity\"",
                format!("\"{other}\""),
            ))
        }
    };
    let axis = match value_or(&raw.axis, "x".into()).as_str() {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        other => {
            return Err(ModelError::new(subject, "axis", "\"x\", \"y\" or \"z\"", format!("\"{other}\"")))
        }
    };
    Ok(PickupSpec {
        channel: value_or(&raw.channel, 1),
        mass: raw.mass.get_ref().clone(),
        quantity,
        axis,
        weight: value_or(&raw.weight, 1.0),
    })
}

fn build_run(raw: &RawRun) -> Result<PartialRunSettings, ModelError> {
    let scheme = match &raw.scheme {
        Some(name) => Some(name.get_ref().parse::<SchemeKind>().map_err(|_| {
            ModelError::new(
                "run",
                "scheme",
                format!("one of {}", SchemeKind::names()),
                format!("\"{}\"", name.get_ref()),
            )
        })?),
        None => None,
    };
    let step = match (&raw.rate, &raw.dt) {
        (Some(_), Some(_)) => {
            return Err(ModelError::new("run", "dt", "either `rate` or `dt`, not both", "both"))
        }
        (Some(rate), None) => Some(StepSize::rate(*rate.get_ref())?),
        (None, Some(dt)) => Some(StepSize::dt(*dt.get_ref())?),
        (None, None) => None,
    };
    let length = match (&raw.duration, &raw.steps) {
        (Some(_), Some(_)) => {
            return Err(ModelError::new("run", "steps", "either `duration` or `steps`, not both", "both"))
        }
        (Some(d), None) => Some(RunLength::duration(*d.get_ref())?),
        (None, Some(n)) if *n.get_ref() == 0 => {
            return Err(ModelError::new("run", "steps", "at least 1 step", 0))
        }
        (None, Some(n)) => Some(RunLength::Steps(*n.get_ref())),
        (None, None) => None,
    };
    Ok(PartialRunSettings { scheme, step, length })
}

fn build_output(raw: &RawOutput) -> Result<WavOptions, ModelError> {
    let format = match &raw.format {
        Some(name) => SampleFormat::from_name(name.get_ref()).ok_or_else(|| {
            ModelError::new(
                "output",
                "format",
                "\"f32\", \"i16\" or \"i24\"",
                format!("\"{}\"", name.get_ref()),
            )
        })?,
        None => SampleFormat::default(),
    };
    Ok(WavOptions { format, normalize: raw.normalize.unwrap_or(false) })
}
