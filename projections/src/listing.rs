//! The directory listed a page at a time, for both edges: REST
//! `GET /api/v1/ca` (numbered pages) and the MCP tool
//! `list_competent_authorities` (a cursor). One filter, one order, one cut,
//! so the two cannot disagree on which records a filter keeps.

use crate::directory::AuthorityRow;
use crate::search::search;
use crate::views::ListItem;

/// Which records a listing holds. Every filter left `None` keeps all.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Filter {
    /// Only verified (`true`) or only unverified (`false`) records.
    pub verified: Option<bool>,
    /// Only records with (`true`) or without (`false`) any contact detail:
    /// an authority name, e-mail, phone or address.
    pub has_contact: Option<bool>,
    /// A search (`search::search`): best matches first instead of by code.
    pub q: Option<String>,
}

impl Filter {
    /// Whether `row` passes the `verified` and `has_contact` filters.
    fn keeps(&self, row: &AuthorityRow) -> bool {
        self.verified.is_none_or(|v| row.verified == v)
            && self
                .has_contact
                .is_none_or(|c| has_contact_details(row) == c)
    }
}

/// Where a page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start<'a> {
    /// After this many matching records (numbered pages).
    Skip(usize),
    /// After the record with this code, in code order (a cursor; the record
    /// need not match any more). Meant for listings without `q`.
    After(&'a str),
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The records on this page.
    pub items: Vec<ListItem>,
    /// Records matching the filter, over all pages.
    pub total: usize,
    /// Whether records follow this page.
    pub more: bool,
}

/// The page of at most `size` records from `start` among the `rows` that
/// `filter` keeps: by code (the directory's order), or best match first
/// with `q`.
pub fn list(rows: &[AuthorityRow], filter: &Filter, start: Start<'_>, size: usize) -> Listing {
    let found = match filter.q.as_deref().map(str::trim) {
        Some(q) if !q.is_empty() => search(rows, q),
        _ => rows.iter().collect(),
    };
    let matching: Vec<&AuthorityRow> = found.into_iter().filter(|r| filter.keeps(r)).collect();
    let from = match start {
        Start::Skip(skip) => skip.min(matching.len()),
        Start::After(code) => matching.partition_point(|r| r.country_code.as_str() <= code),
    };
    let items: Vec<ListItem> = matching
        .iter()
        .skip(from)
        .take(size)
        .map(|r| ListItem::from(*r))
        .collect();
    Listing {
        more: from + items.len() < matching.len(),
        items,
        total: matching.len(),
    }
}

/// Whether a record holds any contact detail at all.
fn has_contact_details(row: &AuthorityRow) -> bool {
    [&row.ca_name, &row.email, &row.phone, &row.address]
        .iter()
        .any(|field| field.as_deref().is_some_and(|v| !v.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(code: &str, name: &str, email: Option<&str>, verified: bool) -> AuthorityRow {
        AuthorityRow {
            country_code: code.into(),
            country_name: name.into(),
            ca_name: None,
            email: email.map(str::to_owned),
            phone: None,
            address: None,
            notes: None,
            verified,
            last_checked: None,
            source: None,
            source_method: None,
            source_steward: None,
            source_note: None,
            version: 1,
            position: 1,
            updated_at: String::new(),
            state: domain::authority::Authority::default(),
        }
    }

    fn rows() -> Vec<AuthorityRow> {
        vec![
            row("AT", "Austria", Some("a@example.at"), true),
            row("BE", "Belgium", None, false),
            row("CZ", "Czechia", Some(" "), false),
            row("DE", "Germany", Some("d@example.de"), false),
            row("DK", "Denmark", None, true),
        ]
    }

    fn codes(listing: &Listing) -> Vec<&str> {
        listing
            .items
            .iter()
            .map(|i| i.country_code.as_str())
            .collect()
    }

    #[test]
    fn filters_keep_the_same_records_whatever_the_page() {
        let rows = rows();
        let all = Filter::default();
        let with = Filter {
            has_contact: Some(true),
            ..Filter::default()
        };
        let without_verified = Filter {
            has_contact: Some(false),
            verified: Some(true),
            ..Filter::default()
        };
        let page = list(&rows, &all, Start::Skip(0), 10);
        assert_eq!((page.total, page.more), (5, false));
        assert_eq!(codes(&list(&rows, &with, Start::Skip(0), 10)), ["AT", "DE"]);
        assert_eq!(
            codes(&list(&rows, &without_verified, Start::Skip(0), 10)),
            ["DK"]
        );
    }

    #[test]
    fn pages_by_number_and_by_cursor_cut_the_same_way() {
        let rows = rows();
        let all = Filter::default();
        let first = list(&rows, &all, Start::Skip(0), 2);
        assert_eq!((codes(&first), first.more), (vec!["AT", "BE"], true));
        let by_number = list(&rows, &all, Start::Skip(2), 2);
        let by_cursor = list(&rows, &all, Start::After("BE"), 2);
        assert_eq!(by_number, by_cursor);
        assert_eq!(codes(&by_cursor), ["CZ", "DE"]);
        let last = list(&rows, &all, Start::After("DE"), 2);
        assert_eq!((codes(&last), last.more), (vec!["DK"], false));
        assert!(list(&rows, &all, Start::Skip(99), 2).items.is_empty());
        assert_eq!(
            codes(&list(&rows, &all, Start::After("CA"), 1)),
            ["CZ"],
            "a cursor whose record is gone still continues in code order"
        );
    }

    #[test]
    fn a_search_lists_best_matches_first_and_still_filters() {
        let rows = rows();
        let filter = Filter {
            q: Some("de".into()),
            has_contact: Some(true),
            ..Filter::default()
        };
        assert_eq!(codes(&list(&rows, &filter, Start::Skip(0), 10)), ["DE"]);
    }
}
