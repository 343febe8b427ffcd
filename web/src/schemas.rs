//! The schema of every request body and query type, built once at start
//! into the server's state ([`crate::AppState::schemas`], from the list the
//! REST crate keeps): each type's JSON Schema as the OpenAPI document states
//! it, and every pattern in it compiled. The readers ([`crate::body::read`],
//! [`crate::params::read`]) check values against it. A type that was not
//! registered is read all the same, its schema generated for that request:
//! correct, only slower (a test registers every type a route reads).

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};
use utoipa::openapi::path::ParameterIn;
use utoipa::{IntoParams, ToSchema};

/// Every registered body and query type's schema, and their patterns.
#[derive(Default)]
pub struct Schemas {
    bodies: HashMap<TypeId, Arc<BodySchema>>,
    queries: HashMap<TypeId, Arc<Declared>>,
    patterns: HashMap<String, regex::Regex>,
    names: Vec<String>,
}

impl std::fmt::Debug for Schemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schemas")
            .field("types", &self.names)
            .finish()
    }
}

impl Schemas {
    /// These schemas and body type `T`'s.
    #[must_use]
    pub fn body<T: ToSchema + 'static>(mut self) -> Self {
        let schema = BodySchema::of::<T>();
        self.compile(&schema.root);
        for component in schema.components.values() {
            self.compile(component);
        }
        self.bodies.insert(TypeId::of::<T>(), Arc::new(schema));
        self.names.push(std::any::type_name::<T>().to_owned());
        self
    }

    /// These schemas and query type `T`'s.
    #[must_use]
    pub fn query<T: IntoParams + 'static>(mut self) -> Self {
        let declared = Declared::of::<T>();
        for (_, schema) in &declared.0 {
            self.compile(schema);
        }
        self.queries.insert(TypeId::of::<T>(), Arc::new(declared));
        self.names.push(std::any::type_name::<T>().to_owned());
        self
    }

    /// The Rust names of the registered body and query types.
    pub fn body_names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// Whether query type `T` is registered.
    pub fn has_query<T: IntoParams + 'static>(&self) -> bool {
        self.queries.contains_key(&TypeId::of::<T>())
    }

    /// `T`'s schema: the registered one, or one made now.
    pub(crate) fn body_of<T: ToSchema + 'static>(&self) -> Arc<BodySchema> {
        self.bodies
            .get(&TypeId::of::<T>())
            .cloned()
            .unwrap_or_else(|| Arc::new(BodySchema::of::<T>()))
    }

    /// `T`'s parameters: the registered ones, or ones made now.
    pub(crate) fn query_of<T: IntoParams + 'static>(&self) -> Arc<Declared> {
        self.queries
            .get(&TypeId::of::<T>())
            .cloned()
            .unwrap_or_else(|| Arc::new(Declared::of::<T>()))
    }

    /// Whether `text` matches the schema pattern `pattern` (a search, as
    /// JSON Schema's `pattern` is): compiled at start when registered, else
    /// now. A pattern that does not compile matches nothing (a test compiles
    /// every pattern of the document).
    pub fn matches(&self, pattern: &str, text: &str) -> bool {
        match self.patterns.get(pattern) {
            Some(regex) => regex.is_match(text),
            None => matches(pattern, text),
        }
    }

    /// Compiles every `pattern` in `schema`.
    fn compile(&mut self, schema: &Value) {
        match schema {
            Value::Object(map) => {
                if let Some(Value::String(pattern)) = map.get("pattern") {
                    if let Ok(regex) = regex::Regex::new(pattern) {
                        self.patterns.insert(pattern.clone(), regex);
                    }
                }
                map.values().for_each(|inner| self.compile(inner));
            }
            Value::Array(items) => items.iter().for_each(|inner| self.compile(inner)),
            _ => {}
        }
    }
}

/// The JSON form of a body type's schema and of the schemas it refers to.
pub(crate) struct BodySchema {
    pub(crate) root: Value,
    pub(crate) components: Map<String, Value>,
}

impl BodySchema {
    /// The schema of `T`, generated now.
    pub(crate) fn of<T: ToSchema>() -> Self {
        let root = serde_json::to_value(T::schema()).unwrap_or_default();
        let mut referenced = Vec::new();
        T::schemas(&mut referenced);
        let components = referenced
            .into_iter()
            .filter_map(|(name, schema)| Some((name, serde_json::to_value(schema).ok()?)))
            .collect();
        Self { root, components }
    }
}

/// The parameters a query type declares, in order, with their schemas
/// (as the OpenAPI document states them).
pub(crate) struct Declared(pub(crate) Vec<(String, Value)>);

impl Declared {
    /// The parameters of `T`, read now.
    pub(crate) fn of<T: IntoParams>() -> Self {
        let parameters = T::into_params(|| Some(ParameterIn::Query));
        Self(
            parameters
                .into_iter()
                .filter_map(|p| serde_json::to_value(p).ok())
                .filter_map(|p| Some((p["name"].as_str()?.to_owned(), p["schema"].clone())))
                .collect(),
        )
    }
}

/// Whether `text` matches the schema pattern `pattern` (a search, as JSON
/// Schema's `pattern` is), the pattern compiled for this call (servers read
/// with the patterns compiled at start: [`Schemas::matches`]). A pattern
/// that does not compile matches nothing (a test compiles every pattern of
/// the document).
pub fn matches(pattern: &str, text: &str) -> bool {
    regex::Regex::new(pattern).is_ok_and(|regex| regex.is_match(text))
}
