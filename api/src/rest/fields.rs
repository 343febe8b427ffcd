//! Reading the fields of a JSON object body, collecting every problem (so a
//! 422 lists them all) and refusing fields the route does not know (so a
//! typo is not silently ignored).

use chrono::NaiveDate;
use serde_json::{Map, Value};

use domain::authority::FieldProblem;

use crate::rest::error::ApiError;

/// The fields of one JSON object, read one by one.
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    prefix: String,
    known: Vec<&'static str>,
    problems: Vec<FieldProblem>,
}

impl<'a> Fields<'a> {
    /// The top-level object of a body.
    ///
    /// # Errors
    /// 422 naming `body` when it is not a JSON object.
    pub fn of(body: &'a Value) -> Result<Self, ApiError> {
        match body {
            Value::Object(map) => Ok(Self::nested(map, "")),
            _ => Err(ApiError::invalid("body", "must be a JSON object")),
        }
    }

    /// A nested object whose problems are named `prefix.field`.
    pub fn nested(map: &'a Map<String, Value>, prefix: &str) -> Self {
        Self {
            map,
            prefix: prefix.to_owned(),
            known: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// Records a problem with `field` (named with this object's prefix).
    pub fn problem(&mut self, field: &str, message: impl Into<String>) {
        let name = format!("{}{field}", self.prefix);
        self.problems.push(FieldProblem::new(name, message));
    }

    fn get(&mut self, field: &'static str, required: bool) -> Option<&'a Value> {
        self.known.push(field);
        match self.map.get(field) {
            None | Some(Value::Null) => {
                if required {
                    self.problem(field, "is required");
                }
                None
            }
            Some(value) => Some(value),
        }
    }

    /// A string field; absent or `null` is `None`.
    pub fn text(&mut self, field: &'static str, required: bool) -> Option<String> {
        match self.get(field, required)? {
            Value::String(text) => Some(text.clone()),
            _ => {
                self.problem(field, "must be a string");
                None
            }
        }
    }

    /// A boolean field.
    pub fn flag(&mut self, field: &'static str, required: bool) -> Option<bool> {
        match self.get(field, required)? {
            Value::Bool(flag) => Some(*flag),
            _ => {
                self.problem(field, "must be true or false");
                None
            }
        }
    }

    /// An array of strings; absent or `null` is `None`.
    pub fn strings(&mut self, field: &'static str) -> Option<Vec<String>> {
        let items = match self.get(field, false)? {
            Value::Array(items) => items,
            _ => {
                self.problem(field, "must be an array of strings");
                return None;
            }
        };
        let texts: Option<Vec<String>> = items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect();
        if texts.is_none() {
            self.problem(field, "must be an array of strings");
        }
        texts
    }

    /// A `YYYY-MM-DD` date field.
    pub fn date(&mut self, field: &'static str, required: bool) -> Option<NaiveDate> {
        let text = self.text(field, required)?;
        let parsed = parse_date(&text);
        if parsed.is_none() {
            self.problem(field, "must be a date as YYYY-MM-DD");
        }
        parsed
    }

    /// A positive integer field.
    pub fn positive(&mut self, field: &'static str) -> Option<i64> {
        match self.get(field, false)?.as_i64() {
            Some(n) if n >= 1 => Some(n),
            _ => {
                self.problem(field, "must be a positive integer");
                None
            }
        }
    }

    /// An object field, handed back raw.
    pub fn object(&mut self, field: &'static str) -> Option<&'a Map<String, Value>> {
        match self.get(field, false)? {
            Value::Object(map) => Some(map),
            _ => {
                self.problem(field, "must be a JSON object");
                None
            }
        }
    }

    /// Adds problems found elsewhere (e.g. in a nested object).
    pub fn extend(&mut self, problems: Vec<FieldProblem>) {
        self.problems.extend(problems);
    }

    /// Every problem found so far, plus one per field nobody asked for.
    pub fn into_problems(mut self) -> Vec<FieldProblem> {
        let unknown: Vec<String> = self
            .map
            .keys()
            .filter(|k| !self.known.contains(&k.as_str()))
            .cloned()
            .collect();
        for key in unknown {
            self.problem(&key, "is not a known field");
        }
        self.problems
    }

    /// `Ok` when no problem was found.
    ///
    /// # Errors
    /// 422 listing every problem.
    pub fn finish(self) -> Result<(), ApiError> {
        let problems = self.into_problems();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Invalid(problems))
        }
    }
}

/// A strict `YYYY-MM-DD` date.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    if text.len() != 10 {
        return None;
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_problem_is_listed_including_unknown_fields() {
        let body = json!({"verified": "yes", "checked_on": "2024-13-01", "extra": 1});
        let mut fields = Fields::of(&body).expect("object");
        assert_eq!(fields.flag("verified", true), None);
        assert_eq!(fields.date("checked_on", true), None);
        assert_eq!(fields.text("source", true), None);
        let names: Vec<_> = fields
            .into_problems()
            .into_iter()
            .map(|p| p.field)
            .collect();
        assert_eq!(names, ["verified", "checked_on", "source", "extra"]);
    }

    #[test]
    fn dates_are_strict() {
        assert!(parse_date("2024-02-29").is_some());
        for bad in [
            "2024-2-29",
            "2023-02-29",
            "20240229",
            "2024-02-29T00:00:00Z",
            "",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }
}
