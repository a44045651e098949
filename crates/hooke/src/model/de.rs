//! How the spec types read from the TOML formats: the few fields whose written form differs from
//! their Rust form (a vector given as one number, a mass list given as a prefix pattern, an axis
//! or a quantity given by name). The formats themselves live a layer above, in `format`.

use super::{MassSelection, NodeRef};
use crate::quantity::Quantity;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// A vector: a number (one component) or a non-empty array of numbers, one per dimension.
pub(crate) fn vector<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<f64>, D::Error> {
    struct VectorVisitor;
    impl<'de> Visitor<'de> for VectorVisitor {
        type Value = Vec<f64>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a number or an array of numbers (one per dimension)")
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Vec<f64>, E> {
            Ok(vec![v])
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vec<f64>, E> {
            Ok(vec![v as f64])
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vec<f64>, E> {
            Ok(vec![v as f64])
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<f64>, A::Error> {
            let mut components = Vec::new();
            while let Some(c) = seq.next_element::<f64>()? {
                components.push(c);
            }
            if components.is_empty() {
                return Err(de::Error::invalid_length(0, &self));
            }
            Ok(components)
        }
    }
    deserializer.deserialize_any(VectorVisitor)
}

/// An axis by name: `"x"`, `"y"` or `"z"` (0, 1, 2).
pub(crate) fn axis<'de, D: Deserializer<'de>>(deserializer: D) -> Result<usize, D::Error> {
    let name = String::deserialize(deserializer)?;
    match name.as_str() {
        "x" => Ok(0),
        "y" => Ok(1),
        "z" => Ok(2),
        other => Err(de::Error::custom(format!("`axis`: expected \"x\", \"y\" or \"z\", found \"{other}\""))),
    }
}

/// A quantity by name: `"position"` or `"velocity"`.
pub(crate) fn quantity<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Quantity, D::Error> {
    let name = String::deserialize(deserializer)?;
    match name.as_str() {
        "position" => Ok(Quantity::Position),
        "velocity" => Ok(Quantity::Velocity),
        other => Err(de::Error::custom(format!(
            "`quantity`: expected \"position\" or \"velocity\", found \"{other}\""
        ))),
    }
}

/// A node is written as its id.
impl<'de> Deserialize<'de> for NodeRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(NodeRef::Id)
    }
}

/// A mass list is one id, a prefix pattern ending in `*` (`"s.*"`), or an array of ids.
impl<'de> Deserialize<'de> for MassSelection {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SelectionVisitor;
        impl<'de> Visitor<'de> for SelectionVisitor {
            type Value = MassSelection;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mass id, a prefix pattern such as \"s.*\", or an array of mass ids")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MassSelection, E> {
                Ok(match v.strip_suffix('*') {
                    Some(prefix) => MassSelection::Prefix(prefix.to_string()),
                    None => MassSelection::Masses(vec![NodeRef::Id(v.to_string())]),
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MassSelection, A::Error> {
                let mut masses = Vec::new();
                while let Some(id) = seq.next_element::<String>()? {
                    masses.push(NodeRef::Id(id));
                }
                Ok(MassSelection::Masses(masses))
            }
        }
        deserializer.deserialize_any(SelectionVisitor)
    }
}
