//! The answer types of the REST API that are other crates' types,
//! documented by thin newtypes whose schemas are the types' own schemars
//! schemas (`web::schemars_schema!`).

use web::schemars_schema;

/// A record as `GET /api/v1/ca/{country_code}` answers it.
pub struct Record(pub projections::views::Record);
schemars_schema!(Record, projections::views::Record, "Record");

/// A record's history.
pub struct History(pub projections::views::History);
schemars_schema!(History, projections::views::History, "History");

/// One contact of a record.
pub struct Contact(pub projections::views::ContactView);
schemars_schema!(Contact, projections::views::ContactView, "Contact");

/// What the classifier answers.
pub struct Classification(pub law::procedure::Classified);
schemars_schema!(Classification, law::procedure::Classified, "Classification");

/// A shipment plan.
pub struct ShipmentPlan(pub projections::shipment::ShipmentPlan);
schemars_schema!(
    ShipmentPlan,
    projections::shipment::ShipmentPlan,
    "ShipmentPlan"
);

/// How much of the directory is known.
pub struct Coverage(pub projections::coverage::Coverage);
schemars_schema!(Coverage, projections::coverage::Coverage, "Coverage");

#[cfg(test)]
mod tests {
    use super::*;
    use utoipa::{PartialSchema, ToSchema};

    #[test]
    fn a_schemars_schema_keeps_every_keyword_and_names_what_it_refers_to() {
        let own = serde_json::to_value(Record::schema()).expect("JSON");
        assert_eq!(own["properties"]["ca_name"]["anyOf"][1]["type"], "null");
        assert!(own.get("type").is_some(), "{own}");
        let mut referred = Vec::new();
        Record::schemas(&mut referred);
        assert!(!referred.is_empty());
        assert!(referred.iter().all(|(name, _)| name != "Record"));
    }
}
