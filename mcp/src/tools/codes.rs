//! The classifier tools: `classify_waste` (the same checks and result as
//! `POST /api/v1/classify`) and `lookup_basel_code`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use classifier::CodeInfo;
use domain::values::CountryCode;
use law::procedure::{classify_route, Classified};

use super::args::Text;
use super::{ToolError, MAX_CODE_CHARS, MAX_COUNTRY_CHARS, MAX_DESCRIPTION_CHARS};
use crate::handler::Basel;

/// The arguments of `classify_waste`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClassifyWaste {
    /// The waste in plain language: material, origin, form, hazardous constituents.
    description: Text<MAX_DESCRIPTION_CHARS>,
    /// Country of export: ISO 3166-1 alpha-2 code (DE) or country name (Germany).
    origin: Option<Text<MAX_COUNTRY_CHARS>>,
    /// Country of import: code or name.
    destination: Option<Text<MAX_COUNTRY_CHARS>>,
    /// Law of this day, YYYY-MM-DD (default today).
    as_of: Option<Text<MAX_CODE_CHARS>>,
}

/// The arguments of `lookup_basel_code`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LookupCode {
    /// A Y, A, B or H code, any case, e.g. A1160, y31, B3020, H6.1.
    code: Text<MAX_CODE_CHARS>,
}

#[tool_router(router = code_tools, vis = "pub(crate)")]
impl Basel {
    /// A plain-language waste description (en, es, pt, fr, de, it, nl; Chinese and
    /// Vietnamese trade terms) read as Basel codes (Y, A, B, H), UN numbers, list type,
    /// whether Prior Informed Consent applies, questions, warnings. With origin and
    /// destination, also the procedure; for a route use plan_shipment. Informational only.
    #[tool(title = "Classify a waste")]
    async fn classify_waste(
        &self,
        Parameters(input): Parameters<ClassifyWaste>,
    ) -> Result<Json<Classified>, ToolError> {
        let as_of = match input.as_of.as_ref() {
            Some(text) => law::parse_as_of(text.as_str())
                .map_err(|m| ToolError::invalid(format!("`as_of`: {m}")))?,
            None => chrono::Utc::now().date_naive(),
        };
        let origin = self.country_code(input.origin.as_ref()).await?;
        let destination = self.country_code(input.destination.as_ref()).await?;
        Ok(Json(classify_route(
            &self.state().classifier,
            input.description.as_str(),
            origin.as_ref(),
            destination.as_ref(),
            as_of,
        )))
    }

    /// Name, annex and status of any Y, A, B or H code: in force, or deleted and by what it
    /// was replaced.
    #[tool(title = "Look up a Basel code")]
    fn lookup_basel_code(
        &self,
        Parameters(input): Parameters<LookupCode>,
    ) -> Result<Json<CodeInfo>, ToolError> {
        let code = input.code.as_str();
        self.state()
            .classifier
            .lookup(code)
            .map(Json)
            .ok_or_else(|| {
                ToolError::not_found(format!(
                    "'{code}' is not a Basel code. Codes look like Y31 (Annexes I/II), A1160 \
                     (Annex VIII), B3020 (Annex IX) or H6.1 (Annex III)."
                ))
            })
    }
}

impl Basel {
    /// A country argument as a code: a two-letter code, or a name the
    /// directory knows (resolved as `get_competent_authority` resolves it).
    async fn country_code(
        &self,
        input: Option<&Text<MAX_COUNTRY_CHARS>>,
    ) -> Result<Option<CountryCode>, ToolError> {
        let Some(input) = input else {
            return Ok(None);
        };
        if let Ok(code) = CountryCode::parse(input.as_str()) {
            return Ok(Some(code));
        }
        let row = self.country(input).await?;
        CountryCode::parse(&row.country_code)
            .map(Some)
            .map_err(|e| ToolError::invalid(e.to_string()))
    }
}
