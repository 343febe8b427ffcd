//! Reading tool arguments with messages a model can act on.
//!
//! Clients are expected to follow the input schema, but nothing forces them
//! to: every argument is checked here, and a wrong one becomes a tool error
//! naming the argument and what it must be.

use rmcp::model::JsonObject;
use serde_json::Value;

use super::ToolError;

/// The `arguments` of one `tools/call`.
pub(crate) struct Args(JsonObject);

impl Args {
    /// Wraps the arguments (absent = none).
    pub(crate) fn new(arguments: Option<JsonObject>) -> Self {
        Self(arguments.unwrap_or_default())
    }

    /// Refuses arguments the tool does not take.
    pub(crate) fn only(&self, known: &[&str]) -> Result<(), ToolError> {
        match self.0.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(unknown) => Err(ToolError::invalid(format!(
                "unknown argument `{unknown}`; this tool takes: {}",
                known.join(", ")
            ))),
        }
    }

    /// An optional string, trimmed; `null` counts as absent.
    pub(crate) fn string(&self, name: &str) -> Result<Option<String>, ToolError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.trim().to_owned())),
            Some(_) => Err(ToolError::invalid(format!("`{name}` must be a string"))),
        }
    }

    /// A required, non-empty string of at most `max` characters.
    pub(crate) fn required(&self, name: &str, max: usize) -> Result<String, ToolError> {
        let text = self
            .string(name)?
            .ok_or_else(|| ToolError::invalid(format!("`{name}` is required")))?;
        if text.is_empty() {
            return Err(ToolError::invalid(format!("`{name}` must not be empty")));
        }
        if text.chars().count() > max {
            return Err(ToolError::invalid(format!(
                "`{name}` must be at most {max} characters"
            )));
        }
        Ok(text)
    }

    /// An optional array of strings (each trimmed), at most `max` of them.
    pub(crate) fn strings(&self, name: &str, max: usize) -> Result<Vec<String>, ToolError> {
        let wrong = || ToolError::invalid(format!("`{name}` must be an array of strings"));
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) if items.len() <= max => items
                .iter()
                .map(|item| item.as_str().map(|t| t.trim().to_owned()).ok_or_else(wrong))
                .collect(),
            Some(Value::Array(_)) => Err(ToolError::invalid(format!(
                "`{name}` takes at most {max} items"
            ))),
            Some(_) => Err(wrong()),
        }
    }

    /// An optional boolean.
    pub(crate) fn boolean(&self, name: &str) -> Result<Option<bool>, ToolError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(value)) => Ok(Some(*value)),
            Some(_) => Err(ToolError::invalid(format!(
                "`{name}` must be true or false"
            ))),
        }
    }

    /// An optional integer within `min..=max`.
    pub(crate) fn integer(&self, name: &str, min: u64, max: u64) -> Result<Option<u64>, ToolError> {
        let out_of_range =
            || ToolError::invalid(format!("`{name}` must be an integer from {min} to {max}"));
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(number)) => {
                let value = number
                    .as_u64()
                    .or_else(|| {
                        number
                            .as_f64()
                            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                            .map(|f| f as u64)
                    })
                    .ok_or_else(out_of_range)?;
                if (min..=max).contains(&value) {
                    Ok(Some(value))
                } else {
                    Err(out_of_range())
                }
            }
            Some(_) => Err(out_of_range()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> Args {
        match value {
            Value::Object(map) => Args::new(Some(map)),
            _ => Args::new(None),
        }
    }

    #[test]
    fn arguments_are_checked_by_type_range_and_name() {
        let a = args(json!({"q": " x ", "n": 7, "f": 2.0, "b": true, "bad": 1e300, "s": 5}));
        assert_eq!(a.string("q").unwrap().as_deref(), Some("x"));
        assert_eq!(a.integer("n", 1, 10).unwrap(), Some(7));
        assert_eq!(a.integer("f", 1, 10).unwrap(), Some(2));
        assert!(a.integer("n", 1, 5).is_err());
        assert!(a.integer("bad", 1, 5).is_err());
        assert_eq!(a.boolean("b").unwrap(), Some(true));
        assert!(a.boolean("n").is_err());
        assert!(a.string("s").is_err());
        assert!(a.required("missing", 5).is_err());
        assert!(a.only(&["q"]).is_err());
        assert!(args(json!({"q": "   "})).required("q", 5).is_err());
        assert!(args(json!({"q": "toolong"})).required("q", 5).is_err());
    }
}
