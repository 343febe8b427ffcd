//! How an error reaches the operator: one line, each cause once.
//!
//! anyhow's `{:#}` joins every cause of the chain with `: `; an error whose
//! own message already quotes its source (`cannot create data directory D:
//! Permission denied (os error 13)`, with that IO error as its source) then
//! reads "…: Permission denied (os error 13): Permission denied (os error
//! 13)". [`one_line`] leaves out a cause the text so far already ends with
//! or contains.

/// The error and its causes in one line, without repeats (for JSON logs:
/// one object per line).
pub fn one_line(error: &anyhow::Error) -> String {
    joined(error, " ")
}

/// The error and its causes without repeats, a list inside a message (an
/// import's problems) kept one item per line, for a person at a terminal.
pub fn for_terminal(error: &anyhow::Error) -> String {
    joined(error, "\n")
}

fn joined(error: &anyhow::Error, line_break: &str) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause
            .to_string()
            .replace('\r', "")
            .replace('\n', line_break);
        let part = part.trim();
        if part.is_empty() || text.contains(part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(part);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn a_list_keeps_its_lines_at_a_terminal_and_one_line_in_logs() {
        let error = anyhow::anyhow!("2 problem(s), nothing imported:\na: one\nb: two");
        assert_eq!(for_terminal(&error).lines().count(), 3);
        assert_eq!(one_line(&error).lines().count(), 1);
    }

    #[test]
    fn a_cause_the_message_already_quotes_is_not_repeated() {
        let io = std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "Permission denied (os error 13)",
        );
        let error = Err::<(), _>(io)
            .context("cannot create data directory /x: Permission denied (os error 13)")
            .context("cannot open the store")
            .unwrap_err();
        assert_eq!(
            one_line(&error),
            "cannot open the store: cannot create data directory /x: Permission denied (os error 13)"
        );
    }
}
