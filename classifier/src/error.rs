//! Why the embedded knowledge base could not be built.

/// The embedded reference or curated data is inconsistent. This is a build
/// defect, not a user error: `Classifier::bundled` fails at startup, never
/// while classifying.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KnowledgeBaseError {
    /// An embedded JSON file does not have the expected shape.
    #[error("embedded data file {file} could not be parsed: {message}")]
    Parse {
        /// The embedded file's name.
        file: &'static str,
        /// The parser's message.
        message: String,
    },
    /// Curated data names a code that is not an in-force entry of the annexes.
    #[error("curated data refers to unknown or deleted code {code} ({context})")]
    UnknownCode {
        /// The offending code.
        code: String,
        /// Where it was found.
        context: String,
    },
}
