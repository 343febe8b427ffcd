//! Argument types that carry their bounds: each one checks a value as it is
//! read (serde) and states the same bound in the tool's input schema
//! (schemars), from one constant.
//!
//! A tool's arguments are a struct of these (`deny_unknown_fields`), read by
//! rmcp's `Parameters`. A value that does not fit is refused before the tool
//! runs, as an `invalid_argument` tool error (see `tools::argument_error`).

use std::borrow::Cow;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

/// A string, trimmed, of 1 to `MAX` characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text<const MAX: usize>(String);

impl<const MAX: usize> Text<MAX> {
    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub(crate) fn into_string(self) -> String {
        self.0
    }
}

impl<'de, const MAX: usize> Deserialize<'de> for Text<MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Expect<const MAX: usize>;
        impl<const MAX: usize> Visitor<'_> for Expect<MAX> {
            type Value = Text<MAX>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a string of 1 to {MAX} characters")
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
                let text = value.trim();
                let length = text.chars().count();
                if (1..=MAX).contains(&length) {
                    Ok(Text(text.to_owned()))
                } else {
                    Err(E::custom(format!(
                        "expected a string of 1 to {MAX} characters (without surrounding \
                         spaces), got {length}"
                    )))
                }
            }
        }
        deserializer.deserialize_str(Expect::<MAX>)
    }
}

impl<const MAX: usize> JsonSchema for Text<MAX> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Text{MAX}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "minLength": 1, "maxLength": MAX })
    }
}

/// A list of at most `MAX` items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Few<T, const MAX: usize>(Vec<T>);

impl<T, const MAX: usize> Few<T, MAX> {
    /// The items.
    pub(crate) fn into_vec(self) -> Vec<T> {
        self.0
    }
}

impl<'de, T: Deserialize<'de>, const MAX: usize> Deserialize<'de> for Few<T, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Expect<T, const MAX: usize>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>, const MAX: usize> Visitor<'de> for Expect<T, MAX> {
            type Value = Few<T, MAX>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "an array of at most {MAX} items")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    if items.len() == MAX {
                        return Err(de::Error::custom(format!(
                            "expected an array of at most {MAX} items"
                        )));
                    }
                    items.push(item);
                }
                Ok(Few(items))
            }
        }
        deserializer.deserialize_seq(Expect::<T, MAX>(std::marker::PhantomData))
    }
}

impl<T: JsonSchema, const MAX: usize> JsonSchema for Few<T, MAX> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Few{MAX}{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "array", "items": generator.subschema_for::<T>(), "maxItems": MAX })
    }
}

/// A whole number from `MIN` to `MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Count<const MIN: u64, const MAX: u64>(u64);

impl<const MIN: u64, const MAX: u64> Count<MIN, MAX> {
    /// The number.
    pub(crate) fn get(self) -> u64 {
        self.0
    }
}

impl<'de, const MIN: u64, const MAX: u64> Deserialize<'de> for Count<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Expect<const MIN: u64, const MAX: u64>;
        impl<const MIN: u64, const MAX: u64> Expect<MIN, MAX> {
            fn check<E: de::Error>(value: Option<u64>) -> Result<Count<MIN, MAX>, E> {
                value
                    .filter(|v| (MIN..=MAX).contains(v))
                    .map(Count)
                    .ok_or_else(|| E::custom(format!("expected an integer from {MIN} to {MAX}")))
            }
        }
        impl<const MIN: u64, const MAX: u64> Visitor<'_> for Expect<MIN, MAX> {
            type Value = Count<MIN, MAX>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "an integer from {MIN} to {MAX}")
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
                Self::check(Some(value))
            }

            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
                Self::check(u64::try_from(value).ok())
            }

            fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
                // JSON has one number type: 2.0 is the integer 2.
                let whole = value.fract() == 0.0 && (0.0..=u64::MAX as f64).contains(&value);
                Self::check(whole.then_some(value as u64))
            }
        }
        deserializer.deserialize_any(Expect::<MIN, MAX>)
    }
}

impl<const MIN: u64, const MAX: u64> JsonSchema for Count<MIN, MAX> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Count{MIN}to{MAX}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "minimum": MIN, "maximum": MAX })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{from_value, json};

    #[test]
    fn values_are_checked_against_the_bounds_their_schemas_state() {
        let text: Text<5> = from_value(json!(" abc ")).unwrap();
        assert_eq!(text.as_str(), "abc");
        assert!(from_value::<Text<5>>(json!("   ")).is_err());
        assert!(from_value::<Text<5>>(json!("toolong")).is_err());
        assert!(
            from_value::<Text<5>>(json!("ééééé")).is_ok(),
            "characters, not bytes"
        );
        assert!(from_value::<Text<5>>(json!(5)).is_err());
        assert_eq!(from_value::<Count<1, 10>>(json!(7)).unwrap().get(), 7);
        assert_eq!(from_value::<Count<1, 10>>(json!(2.0)).unwrap().get(), 2);
        for bad in [
            json!(0),
            json!(11),
            json!(-1),
            json!(1.5),
            json!(1e300),
            json!("5"),
        ] {
            assert!(from_value::<Count<1, 10>>(bad.clone()).is_err(), "{bad}");
        }
        let few: Few<Text<5>, 2> = from_value(json!(["a", "b"])).unwrap();
        assert_eq!(few.into_vec().len(), 2);
        assert!(from_value::<Few<Text<5>, 2>>(json!(["a", "b", "c"])).is_err());
        assert!(from_value::<Few<Text<5>, 2>>(json!([""])).is_err());
        let mut generator = SchemaGenerator::default();
        assert_eq!(
            Text::<5>::json_schema(&mut generator).to_value(),
            json!({"type": "string", "minLength": 1, "maxLength": 5})
        );
        assert_eq!(
            Count::<1, 10>::json_schema(&mut generator).to_value(),
            json!({"type": "integer", "minimum": 1, "maximum": 10})
        );
    }
}
