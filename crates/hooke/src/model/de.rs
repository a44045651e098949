//! How the spec types read from the TOML formats: the few fields whose written form differs from
//! their Rust form (a vector given as one number, a mass list given as a prefix pattern, an axis
//! or a quantity given by name), and those whose errors need to say more than serde's (a
//! dimension, an array of a fixed length). The formats themselves live a layer above, in
//! `format`.

use super::{MassSelection, NodeRef};
use crate::quantity::Quantity;
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
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

/// A float as a file writes it, with its decimal point (`1.0`, not `1`).
fn float_text(v: f64) -> String {
    let text = v.to_string();
    if v.is_finite() && !text.contains('.') {
        format!("{text}.0")
    } else {
        text
    }
}

/// `[model] dimension`: a whole number (its range, 1 to 3, is the model's rule). A float is
/// refused as `expected a whole number (1, 2 or 3), found 1.0`.
pub(crate) fn dimension<'de, D: Deserializer<'de>>(deserializer: D) -> Result<usize, D::Error> {
    struct DimensionVisitor;
    impl Visitor<'_> for DimensionVisitor {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a whole number (1, 2 or 3)")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<usize, E> {
            usize::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<usize, E> {
            u64::try_from(v)
                .map_err(|_| E::custom(format!("expected a whole number (1, 2 or 3), found {v}")))
                .and_then(|v| self.visit_u64(v))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<usize, E> {
            Err(E::custom(format!("expected a whole number (1, 2 or 3), found {}", float_text(v))))
        }
    }
    deserializer.deserialize_any(DimensionVisitor)
}

/// An array of exactly `N` numbers: serde's own reading of `[f64; N]` stops after `N` elements
/// and leaves the rest unread, so `[0.3, 0.3, -1, "junk"]` would pass as `[0.3, 0.3]`.
struct Exactly<const N: usize>([f64; N]);

impl<'de, const N: usize> de::Deserialize<'de> for Exactly<N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ExactlyVisitor<const N: usize>;
        impl<'de, const N: usize> Visitor<'de> for ExactlyVisitor<N> {
            type Value = Exactly<N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an array of {N} numbers")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Exactly<N>, A::Error> {
                let mut values = [0.0; N];
                for (i, value) in values.iter_mut().enumerate() {
                    *value = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(i, &self))?;
                }
                let mut extra = 0;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    extra += 1;
                }
                if extra > 0 {
                    return Err(de::Error::invalid_length(N + extra, &self));
                }
                Ok(Exactly(values))
            }
        }
        deserializer.deserialize_seq(ExactlyVisitor::<N>)
    }
}

/// A field of `N` numbers (a drum's `size`): an array of exactly `N`.
pub(crate) fn array<'de, D: Deserializer<'de>, const N: usize>(
    deserializer: D,
) -> Result<[f64; N], D::Error> {
    Exactly::<N>::deserialize(deserializer).map(|exactly| exactly.0)
}

/// A list of points of `N` numbers (a drum's `pickups`): each an array of exactly `N`.
pub(crate) fn arrays<'de, D: Deserializer<'de>, const N: usize>(
    deserializer: D,
) -> Result<Vec<[f64; N]>, D::Error> {
    Vec::<Exactly<N>>::deserialize(deserializer).map(|list| list.into_iter().map(|e| e.0).collect())
}
