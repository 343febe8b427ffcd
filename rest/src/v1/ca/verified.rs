//! The rule the domain applies to a record or contact sent with
//! `verified: true`: its name, e-mail, phone and date of check must be
//! given (`require_verifiable`, `ContactField::REQUIRED_FOR_VERIFIED`).
//! A body type with a `verified` field says which of the rule's fields it
//! has ([`VerifiedNeeds`]); read and documented as [`Verifiable<T>`], its
//! schema states the rule as `if verified then required [...]`. Without it
//! a client (or schemathesis, which learns from the 422 answers) could only
//! guess the rule.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{json, Map, Value};
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use web::body::{Body, Problems, NOT_BLANK};

/// A body with a `verified` field.
pub trait VerifiedNeeds: Body {
    /// The fields of the rule this body has, in the rule's order
    /// (`ca_name`, `email`, `phone`, `last_checked`).
    const NEEDS: &'static [&'static str];
}

/// A body of type `T`, read as `T` is and documented with the rule.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct Verifiable<T>(pub T);

impl<T: VerifiedNeeds> Body for Verifiable<T> {
    fn check(&self, problems: &mut Problems) {
        self.0.check(problems);
    }
}

impl<T: VerifiedNeeds> PartialSchema for Verifiable<T> {
    /// `T`'s schema with `if`/`then`: JSON Schema keywords utoipa's model
    /// has no field for, so they go where it keeps other keywords
    /// (serialised into the same object).
    fn schema() -> RefOr<Schema> {
        let mut schema = T::schema();
        if let RefOr::T(Schema::Object(object)) = &mut schema {
            let keywords = object.extensions.get_or_insert_with(Extensions::default);
            keywords.insert(
                "if".into(),
                json!({"properties": {"verified": {"const": true}}, "required": ["verified"]}),
            );
            keywords.insert("then".into(), then::<T>());
        }
        schema
    }
}

impl<T: VerifiedNeeds> ToSchema for Verifiable<T> {
    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        T::schemas(schemas);
    }
}

/// What a verified `T` must have: its fields of the rule, each given.
fn then<T: VerifiedNeeds>() -> Value {
    let properties: Map<String, Value> = T::NEEDS
        .iter()
        .map(|field| {
            let rule = match *field {
                "email" => json!({"type": "string", "format": "email"}),
                "last_checked" => json!({"type": "string", "format": "date"}),
                _ => json!({"type": "string", "pattern": NOT_BLANK}),
            };
            ((*field).to_owned(), rule)
        })
        .collect();
    json!({"required": T::NEEDS, "properties": properties})
}

#[cfg(test)]
mod tests {
    use domain::authority::ContactField;

    use super::*;
    use crate::v1::ca::{contacts::ContactBody, create::CreateBody};

    /// The rule's fields `T` has, as the domain names them.
    fn rule_fields<T: ToSchema>() -> Vec<String> {
        let schema = serde_json::to_value(T::schema()).expect("JSON");
        ContactField::REQUIRED_FOR_VERIFIED
            .iter()
            .map(|field| field.name())
            .chain(["last_checked"])
            .filter(|field| schema["properties"].get(field).is_some())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn each_body_names_the_fields_of_the_rule_it_has() {
        assert_eq!(CreateBody::NEEDS, rule_fields::<CreateBody>());
        assert_eq!(ContactBody::NEEDS, rule_fields::<ContactBody>());
    }

    #[test]
    fn a_verified_record_or_contact_states_what_it_needs() {
        let doc = crate::openapi::document();
        let create = &doc["components"]["schemas"]["CreateBody"];
        assert_eq!(create["required"], json!(["country_code", "country_name"]));
        assert_eq!(create["if"]["properties"]["verified"]["const"], true);
        assert_eq!(
            create["then"]["required"],
            json!(["ca_name", "email", "phone", "last_checked"])
        );
        let contact = &doc["components"]["schemas"]["ContactBody"];
        assert_eq!(
            contact["then"]["required"],
            json!(["email", "phone", "last_checked"])
        );
    }
}
